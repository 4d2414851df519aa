#pragma once
// One rank's Chrome-trace timeline, read twice for `clusterscope merge`: scan_trace() learns its
// processes, where the --align event is and its top-level facts; rewrite_trace() then streams
// every event out again with the pids made unique across ranks, processes renamed
// "rank N · <name>", flow ids made unique, timestamps shifted — every other field copied as the
// raw JSON text of the input.
//
// Inputs: NPU trace_view.json (a top-level array of events) or a Kineto trace
// ({"traceEvents": [...], "distributedInfo": {...}, ...}). One file in memory at a time.
//
//   TraceScan scan;
//   if (scan_trace(text, path, "hcom_allReduce", scan, diag)) {
//     RankPlan plan = plan_rank(scan, 3, /*shift_ns=*/0);
//     rewrite_trace(text, path, scan, plan, [&](std::string_view b) { out.write(b); }, st, diag);
//   }

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "io/diagnostics.h"

namespace cs::timeline {

// Merged pid = rank * kPidStride + position of the process within its rank (sorted by the
// original process_sort_index). Small enough for viewers that keep pids in 32 bits up to
// 214748 ranks.
constexpr int64_t kPidStride = 10000;
// Merged flow id = rank * kFlowIdStride + dense index (from 1) of the original id in the file.
constexpr int64_t kFlowIdStride = 1000000000;

struct TraceProcess {
  std::string pid;        // the pid as raw JSON: 437675, or "Spans" with its quotes
  bool has_name = false;  // a process_name M event was seen
  std::string name;       // its args.name as raw JSON string contents (still escaped)
  bool has_sort = false;  // a process_sort_index M event was seen
  double sort_index = 0;  // its args.sort_index
};

struct TraceScan {
  bool object_form = false;             // {"traceEvents": [...]} (Kineto); else an array
  uint64_t events = 0;                  // event objects (non-objects in the array are skipped)
  uint64_t skipped = 0;                 // array elements that are not objects
  std::vector<TraceProcess> processes;  // in first-seen order
  bool align_found = false;
  int64_t align_ns = 0;       // earliest ts (ns) of an event whose name contains align
  std::string align_event;    // that event's name (raw)
  int64_t base_time_ns = -1;  // top-level "baseTimeNanoseconds", -1 when absent
  int distributed_rank = -1;  // top-level distributedInfo.rank, -1 when absent
};

// Reads every event of `json` (the whole file). `align` (may be empty) is the text an event
// name must contain to be the alignment point (phases X, B, i, I, b, n). Returns false with one
// error naming `source`, byte offset and line when the JSON is broken or is not a trace.
// Example: a trace_view.json with 3670 events and 4 processes -> events 3670, 4 processes.
bool scan_trace(simdjson::padded_string_view json, const std::string& source,
                std::string_view align, TraceScan& out, io::Diagnostics& diag);

// How one rank is rewritten.
struct RankPlan {
  int rank = 0;
  int64_t shift_ns = 0;          // added to every ts
  std::vector<int64_t> new_pid;  // parallel to TraceScan::processes
};

// Orders the processes of `scan` (by original sort index, then first seen) and gives each its
// merged pid rank * kPidStride + position. Example: rank 2, processes sorted [800, 437675] ->
// pids 20000, 20001.
RankPlan plan_rank(const TraceScan& scan, int rank, int64_t shift_ns);

struct RewriteStats {
  uint64_t events = 0;          // input events written
  uint64_t added_metadata = 0;  // process_name / process_sort_index events added
  uint64_t flow_ids = 0;        // distinct flow ids renumbered
  uint64_t invalid_fields = 0;  // fields (or args members) left out: not valid JSON
};

// Streams the events of `json` (already scanned into `scan`) to `sink` in chunks of about 1 MB.
// Every event is written as ",\n{...}"; the added metadata events come first. Each copied field
// is checked (io/json/json_validate.h): one that is not valid JSON is left out and counted, with
// one warning for the file. Returns false with an error when the JSON cannot be read (the sink may
// then have got part of the events).
bool rewrite_trace(simdjson::padded_string_view json, const std::string& source,
                   const TraceScan& scan, const RankPlan& plan,
                   const std::function<void(std::string_view)>& sink, RewriteStats& stats,
                   io::Diagnostics& diag);

// "rank 3 · " (with U+00B7), the prefix of every merged process name.
std::string rank_label(int rank);

}  // namespace cs::timeline
