#include "readers/timeline_reader.h"

#include "readers/megengine_timeline.h"
#include "readers/trace_view.h"

namespace cs::readers {

bool read_timeline(const std::string& path, io::InputKind kind, Trace& out, io::Diagnostics& diag) {
  switch (kind) {
    case io::InputKind::kKinetoTrace:
      return read_kineto_trace(path, out, diag);
    case io::InputKind::kTraceView:
      return read_trace_view(path, out, diag);
    case io::InputKind::kMegEngineTimeline:
      return read_megengine_timeline(path, out, diag);
    default:
      diag.error(path, 0, std::string("not a timeline (") + io::input_kind_name(kind) + ")",
                 "pass a Kineto trace, a trace_view.json or a MegEngine chrome_timeline.json");
      return false;
  }
}

}  // namespace cs::readers
