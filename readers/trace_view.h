#pragma once
// NPU trace_view.json (torch_npu, MindSpore; ASCEND_PROFILER_OUTPUT/): a top-level JSON array of
// Chrome-trace events where "ts" may be a string ("1704161511420306.491"). Parsed with the same
// streaming event parser as the Kineto reader (readers/kineto_trace.h); event kinds come from the
// process names in the M events, and device tasks are told apart (compute kernel, communication
// task, wait, DMA: kKernel, kCommunication, kDeviceWait, kDeviceDma) by their stream and task
// type. See formats.md §5.
//
//   Trace t; Diagnostics diag;
//   if (read_trace_view(dir + "/ASCEND_PROFILER_OUTPUT/trace_view.json", t, diag)) ...

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "io/diagnostics.h"
#include "readers/kineto_trace.h"

namespace cs::readers {

// Kind of an event in process `process_name`, given the kind its "cat" gave it:
//   "Ascend Hardware" -> kKernel (kCommunication for hcom_* tasks), "HCCL" -> kCommunication for
//   hcom_* ops, "CANN" -> kRuntime, "Overlap Analysis" -> kOverlap; others keep `from_cat`.
// Example: npu_event_kind("Ascend Hardware", "aclnnMm_MatMul", kOther) == kKernel.
EventKind npu_event_kind(std::string_view process_name, std::string_view event_name,
                         EventKind from_cat);

// What an NPU device task is, from its task type and name.
enum class NpuTaskClass { kCompute, kCommunication, kWait, kDma };

// Class of one Ascend Hardware task: hcom_* -> communication; notify, EVENT_WAIT/RECORD, Write
// Value, place holders -> wait; SDMA, PCIE_DMA, RDMA, MEMCPY_ASYNC, Memcpy, Reduce_Inline -> DMA;
// anything else (AI_CORE, AI_VECTOR_CORE, MIX_AIC/AIV, AI_CPU, DSA, "Other") -> compute.
// Example: npu_task_class("EVENT_WAIT_SQE", "EVENT_WAIT") == NpuTaskClass::kWait.
NpuTaskClass npu_task_class(std::string_view task_type, std::string_view name);

// The device streams (tids of Ascend Hardware) that run collectives: those the HCCL process's
// tasks name in their "stream id" args, and those holding notify or hcom_* tasks.
std::set<int64_t> npu_communication_streams(const Trace& t);

// True when the trace has hcom_* ops in an "HCCL" process (then those are the communication ops
// and the device-side tasks of the same collectives are not counted again).
bool has_hccl_process_ops(const Trace& t);

// True for a communication op to count once: an hcom_* op of the HCCL process, or, in a trace
// without one (`hccl_process_ops` false), an hcom_* task.
bool is_npu_comm_op(const Trace& t, const TraceEvent& e, bool hccl_process_ops);

// Reads trace_view.json (plain or gzip). Returns false with an error diagnostic (byte offset,
// line) when unusable; a damaged file keeps the events before the damage and reports an error.
bool read_trace_view(const std::string& path, Trace& out, io::Diagnostics& diag);
// Same, from JSON text in memory; `source` names it in diagnostics.
bool parse_trace_view(const simdjson::padded_string& json, const std::string& source, Trace& out,
                      io::Diagnostics& diag);

}  // namespace cs::readers
