#include "compare/input_source.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <vector>

#include "io/input_kind.h"
#include "load/discovery.h"
#include "readers/kineto_trace.h"
#include "readers/timeline_reader.h"
#include "readers/trace_content.h"
#include "readers/trace_view.h"

namespace cs::compare {

namespace fs = std::filesystem;

namespace {

bool file_side(const std::string& path, const io::InputClass& c, SideInput& out,
               io::Diagnostics& diag) {
  out.timeline = path;
  if (c.kind == io::InputKind::kKinetoTrace) {
    out.kind = SideKind::kKinetoTrace;
    out.npu = false;
    out.note = "PyTorch profiler (Kineto) trace: " + c.reason;
    return true;
  }
  if (c.kind == io::InputKind::kMegEngineTimeline) {
    out.kind = SideKind::kKinetoTrace;  // device work read with the GPU conventions
    out.npu = false;
    out.note = "MegEngine chrome_timeline.json: " + c.reason;
    return true;
  }
  if (c.kind == io::InputKind::kTraceView) {
    out.kind = SideKind::kTraceView;
    out.npu = true;
    out.note = "NPU trace_view.json: " + c.reason;
    return true;
  }
  diag.error(path, 1,
             std::string("not a profiler timeline (") + io::input_kind_name(c.kind) + ": " +
                 c.reason + ")",
             "pass a Kineto trace (*.json, *.json.gz), a trace_view.json, a MegEngine "
             "chrome_timeline.json, a rank directory or a cluster directory");
  return false;
}

}  // namespace

const char* side_kind_name(SideKind k) {
  switch (k) {
    case SideKind::kKinetoTrace:
      return "Kineto trace";
    case SideKind::kTraceView:
      return "NPU trace_view.json";
    case SideKind::kRankDirectory:
      return "rank directory";
    case SideKind::kClusterDirectory:
      return "cluster directory";
  }
  return "?";
}

bool detect_side(const std::string& path, SideInput& out, io::Diagnostics& diag) {
  out.path = path;
  const io::InputClass c = io::classify_input(path);
  switch (c.kind) {
    case io::InputKind::kMissing:
      diag.error(path, 0, "does not exist", "check the path");
      return false;
    case io::InputKind::kRankDir:
      if (!c.trace_view.empty()) {
        out.kind = SideKind::kRankDirectory;
        out.timeline = c.trace_view;
        out.npu = true;
        out.note = "NPU rank directory, timeline " + out.timeline;
        return true;
      }
      break;
    case io::InputKind::kClusterDir:
    case io::InputKind::kProfDir:
    case io::InputKind::kOtherDir:
      break;
    default:
      return file_side(path, c, out, diag);
  }
  // Many ranks: NPU rank directories first, then Kineto traces.
  load::DiscoveryResult found = load::discover_ranks(path);
  if (!found.ranks.empty()) {
    for (const auto& r : found.ranks) {
      const io::InputClass rc = io::classify_input(r.path);
      if (rc.trace_view.empty()) continue;
      out.kind = SideKind::kClusterDirectory;
      out.timeline = rc.trace_view;
      out.npu = true;
      out.ranks = static_cast<int>(found.ranks.size());
      out.note = "NPU cluster directory with " + std::to_string(found.ranks.size()) +
                 " ranks; comparing rank " + std::to_string(r.rank) + " (" + out.timeline + ")";
      return true;
    }
    // No timeline: only run vs run (against another cluster directory) can use it.
    out.kind = SideKind::kClusterDirectory;
    out.timeline.clear();
    out.npu = true;
    out.ranks = static_cast<int>(found.ranks.size());
    out.note = "NPU cluster directory with " + std::to_string(found.ranks.size()) +
               " ranks, no trace_view.json";
    return true;
  }
  const auto traces = io::timelines_below(path);
  if (traces.empty()) {
    diag.error(path, 0, "no profiler timeline found in this directory (" + c.reason + ")",
               "pass a Kineto trace, a trace_view.json, a rank directory (*_ascend_pt) or a "
               "directory holding them");
    return false;
  }
  out.timeline = traces.front();
  out.npu = io::classify_input(out.timeline).kind == io::InputKind::kTraceView;
  const char* what = out.npu ? "NPU timelines" : "Kineto traces";
  if (traces.size() == 1) {
    out.kind = out.npu ? SideKind::kTraceView : SideKind::kKinetoTrace;
    out.note = std::string("directory with one ") +
               (out.npu ? "NPU timeline: " : "Kineto trace: ") + out.timeline;
  } else {
    out.kind = SideKind::kClusterDirectory;
    out.ranks = static_cast<int>(traces.size());
    out.note = "cluster directory with " + std::to_string(traces.size()) + " " + what +
               "; comparing the first, " + out.timeline;
  }
  return true;
}

bool load_side(const SideInput& in, std::optional<int64_t> step, Profile& out,
               io::Diagnostics& diag) {
  if (in.timeline.empty()) {
    diag.error(in.path, 0, "cluster directory has no trace_view.json in any rank directory",
               "profile with the timeline export on, pass a Kineto trace, or compare it with "
               "another cluster directory (run vs run)");
    return false;
  }
  readers::Trace trace;
  const io::InputKind kind = io::classify_input(in.timeline).kind;
  const bool ok = in.npu ? readers::read_trace_view(in.timeline, trace, diag)
                  : kind == io::InputKind::kMegEngineTimeline
                      ? readers::read_timeline(in.timeline, kind, trace, diag)
                      : readers::read_kineto_trace(in.timeline, trace, diag);
  if (!ok) return false;
  out.source = in.timeline;
  const readers::TraceContent content = readers::trace_content(trace);
  if (content.device_kernels == 0) {
    diag.error(in.timeline, 0, content.summary + ": no device time to compare", content.hint);
    return false;
  }
  return build_profile(std::move(trace), in.npu, step, out, diag);
}

}  // namespace cs::compare
