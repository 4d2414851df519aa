#pragma once
// Chrome-trace timelines: the PyTorch profiler (Kineto) trace of a GPU job, a JSON object with
// "traceEvents" (often *.json.gz), and — through the same event parser — the NPU trace_view.json
// (readers/trace_view.h). See formats.md §5.
//
// The trace is streamed with simdjson on-demand (no DOM of the whole file) into compact records:
// complete (X) and instant (i) events, flow ends (s/f/t), and process/thread names (M). Names are
// interned. Timestamps are kept exactly as integer nanoseconds ("1704161511420306.491" µs ->
// 1704161511420306491 ns): a double in µs loses the nanoseconds at today's epoch values.
//
//   Trace t; Diagnostics diag;
//   if (read_kineto_trace("rank-0.json.gz", t, diag)) { for (auto& e : t.events) ... }

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "io/diagnostics.h"
#include "io/string_pool.h"

namespace cs::readers {

// What an event is, from its "cat" (Kineto) or its process (NPU, set by the trace_view reader).
enum class EventKind : uint8_t {
  kOther,
  kCpuOp,              // cpu_op: framework operators (aten::mm, ...)
  kUserAnnotation,     // user_annotation: ProfilerStep#N, record_function ranges
  kGpuUserAnnotation,  // gpu_user_annotation
  kRuntime,            // cuda_runtime / cuda_driver (cudaLaunchKernel), NPU CANN AscendCL calls
  kKernel,             // kernel (GPU), Ascend Hardware tasks (NPU)
  kMemcpy,             // gpu_memcpy
  kMemset,             // gpu_memset
  kSync,               // cuda_sync
  kPythonFunction,     // python_function
  kCommunication,      // NPU hcom_* ops, and the device tasks of a collective (HCCL streams)
  kOverlap,            // NPU Overlap Analysis events (Computing, Communication, ..., Free)
  kDeviceWait,         // NPU device sync tasks outside collectives (EVENT_WAIT, EVENT_RECORD)
  kDeviceDma,          // NPU DMA tasks outside collectives (PCIE_DMA_SQE, SDMA_SQE, MEMCPY_ASYNC)
};

// A complete (X) or instant (i) event.
struct TraceEvent {
  int64_t ts_ns = 0;   // start, exact nanoseconds
  int64_t dur_ns = 0;  // duration rounded to nanoseconds (0 for instants)
  double dur_us = 0;   // duration as written
  int64_t pid = 0;     // a string pid/tid ("Spans") becomes -(1 + its string id)
  int64_t tid = 0;
  int64_t correlation = -1;  // args "correlation": links a kernel to its runtime launch call
  int64_t external_id = -1;  // args "External id"
  uint32_t name = io::kNoString;
  uint32_t cat = io::kNoString;
  uint32_t input_dims = io::kNoString;  // args "Input Dims" as raw JSON ("[[2048], []]")
  uint32_t task_type = io::kNoString;   // NPU args "Task Type" ("AI_CORE", "AI_CPU", ...)
  int32_t collective = -1;              // index into Trace::collectives (NCCL kernels with args)
  EventKind kind = EventKind::kOther;
  char phase = 'X';

  int64_t end_ns() const { return ts_ns + dur_ns; }
};

// One end of a flow arrow (ph s = start, f = finish, t = step). Link the two ends by (cat, id).
struct FlowEvent {
  int64_t ts_ns = 0;
  int64_t pid = 0;
  int64_t tid = 0;
  uint64_t id = 0;  // numeric ids as is; string ids parsed when numeric, else hashed
  uint32_t cat = io::kNoString;
  char phase = 's';
  bool bind_enclosing = false;  // "bp": "e"
};

// NCCL kernel args of newer PyTorch versions (absent fields: kNoString / -1).
struct CollectiveArgs {
  uint32_t collective_name = io::kNoString;  // "Collective name": "all_reduce", ...
  int64_t in_nelems = -1;                    // "In msg nelems"
  int64_t out_nelems = -1;                   // "Out msg nelems"
  int64_t group_size = -1;                   // "Group size"
  uint32_t dtype = io::kNoString;            // "dtype"
  uint32_t pg_name = io::kNoString;          // "Process Group Name"
  uint32_t pg_ranks = io::kNoString;         // "Process Group Ranks" (as written)
};

struct DistributedInfo {
  bool present = false;
  std::string backend;  // "nccl"
  int rank = -1;
  int world_size = -1;
};

struct Trace {
  io::StringPool strings;
  std::vector<TraceEvent> events;  // X and i events, file order
  std::vector<FlowEvent> flows;    // s/f/t events, file order
  std::vector<CollectiveArgs> collectives;
  std::unordered_map<int64_t, std::string> process_names;   // pid -> M process_name
  std::unordered_map<int64_t, std::string> process_labels;  // pid -> M process_labels ("GPU 0")
  std::map<std::pair<int64_t, int64_t>, std::string> thread_names;  // (pid, tid) -> thread_name
  // (pid, "stream id" arg) of the events carrying one (NPU HCCL tasks name the device stream
  // they run on).
  std::set<std::pair<int64_t, int64_t>> task_streams;
  DistributedInfo distributed;  // Kineto only
  int64_t base_time_ns = -1;    // "baseTimeNanoseconds", -1 when absent
  uint64_t bytes = 0;           // uncompressed JSON size
  uint64_t total_events = 0;    // every array element seen, kept or not
  uint64_t skipped_events = 0;  // malformed elements (reported in the diagnostics)
};

// "1704161511420306.491" (µs, as JSON number or string) -> 1704161511420306491 ns; digits past
// the nanosecond round half up; exponents ("1.7e15") are accepted. False when not a number.
bool parse_us_to_ns(std::string_view text, int64_t& ns);

// Reads a Kineto trace (.json or .json.gz). Returns false (error diagnostic with byte offset and
// line) when the file cannot be used at all; a file damaged in the middle keeps the events read
// before the damage, returns true and reports an error.
bool read_kineto_trace(const std::string& path, Trace& out, io::Diagnostics& diag);
// Same, from JSON text in memory; `source` names it in diagnostics.
bool parse_kineto_trace(const simdjson::padded_string& json, const std::string& source, Trace& out,
                        io::Diagnostics& diag);

// Shared by the Kineto and trace_view readers: parses `json` whose events array is the document
// itself (`events_key` empty, or a top-level array: Chrome's JSON Array Format) or the member
// `events_key` of the top-level object.
bool parse_chrome_trace(const simdjson::padded_string& json, const std::string& source,
                        std::string_view events_key, Trace& out, io::Diagnostics& diag);

// Kind from a Kineto "cat" value. Example: "kernel" -> kKernel, "cpu_op" -> kCpuOp.
EventKind kind_from_category(std::string_view cat);

}  // namespace cs::readers
