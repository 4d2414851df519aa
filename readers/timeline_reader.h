#pragma once
// One entry point for every timeline kind io/input_kind recognises: a Kineto trace, an NPU
// trace_view.json or a MegEngine chrome_timeline.json, read into the same io::Trace.
//
//   const io::InputClass c = io::classify_input(path);
//   io::Trace t;
//   if (io::is_timeline_kind(c.kind) && io::read_timeline(path, c.kind, t, diag)) ...

#include <string>

#include "io/diagnostics.h"
#include "io/input_kind.h"
#include "readers/kineto_trace.h"

namespace cs::readers {

// Reads `path` with the reader of `kind` (kKinetoTrace, kTraceView, kMegEngineTimeline). False
// with an error for any other kind or an unusable file.
bool read_timeline(const std::string& path, io::InputKind kind, Trace& out, io::Diagnostics& diag);

}  // namespace cs::readers
