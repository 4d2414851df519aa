#include "readers/timeline_reader.h"

#include "readers/megengine_timeline.h"
#include "readers/trace_view.h"

namespace cs::io {

bool read_timeline(const std::string& path, InputKind kind, Trace& out, Diagnostics& diag) {
  switch (kind) {
    case InputKind::kKinetoTrace:
      return read_kineto_trace(path, out, diag);
    case InputKind::kTraceView:
      return read_trace_view(path, out, diag);
    case InputKind::kMegEngineTimeline:
      return read_megengine_timeline(path, out, diag);
    default:
      diag.error(path, 0, std::string("not a timeline (") + input_kind_name(kind) + ")",
                 "pass a Kineto trace, a trace_view.json or a MegEngine chrome_timeline.json");
      return false;
  }
}

}  // namespace cs::io
