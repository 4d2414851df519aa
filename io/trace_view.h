#pragma once
// NPU trace_view.json (torch_npu, MindSpore; ASCEND_PROFILER_OUTPUT/): a top-level JSON array of
// Chrome-trace events where "ts" may be a string ("1704161511420306.491"). Parsed with the same
// streaming event parser as the Kineto reader (io/kineto_trace.h); event kinds come from the
// process names in the M events. See formats.md §5.
//
//   Trace t; Diagnostics diag;
//   if (read_trace_view(dir + "/ASCEND_PROFILER_OUTPUT/trace_view.json", t, diag)) ...

#include <string>
#include <string_view>

#include <simdjson.h>

#include "io/diagnostics.h"
#include "io/kineto_trace.h"

namespace cs::io {

// Kind of an event in process `process_name`, given the kind its "cat" gave it:
//   "Ascend Hardware" -> kKernel (kCommunication for hcom_* tasks), "HCCL" -> kCommunication for
//   hcom_* ops, "CANN" -> kRuntime, "Overlap Analysis" -> kOverlap; others keep `from_cat`.
// Example: npu_event_kind("Ascend Hardware", "aclnnMm_MatMul", kOther) == kKernel.
EventKind npu_event_kind(std::string_view process_name, std::string_view event_name,
                         EventKind from_cat);

// Reads trace_view.json (plain or gzip). Returns false with an error diagnostic (byte offset,
// line) when unusable; a damaged file keeps the events before the damage and reports an error.
bool read_trace_view(const std::string& path, Trace& out, Diagnostics& diag);
// Same, from JSON text in memory; `source` names it in diagnostics.
bool parse_trace_view(const simdjson::padded_string& json, const std::string& source, Trace& out,
                      Diagnostics& diag);

}  // namespace cs::io
