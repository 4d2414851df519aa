#pragma once
// What one side of `clusterscope compare` is, and loading it into a Profile:
//   a Kineto trace (*.json / *.json.gz, a JSON object with traceEvents),
//   an NPU trace_view.json (a JSON array),
//   a rank directory (*_ascend_pt / *_ascend_ms, or its ASCEND_PROFILER_OUTPUT/),
//   a cluster directory (many rank directories or many Kineto traces below it).
//
//   SideInput in; if (detect_side("run1/rank0_ascend_pt", in, diag)) load_side(in, {}, prof, diag);

#include <cstdint>
#include <optional>
#include <string>

#include "compare/profile.h"
#include "io/diagnostics.h"

namespace cs::compare {

enum class SideKind { kKinetoTrace, kTraceView, kRankDirectory, kClusterDirectory };

// "Kineto trace", "NPU trace_view.json", "rank directory", "cluster directory".
const char* side_kind_name(SideKind k);

struct SideInput {
  std::string path;  // as given
  SideKind kind = SideKind::kKinetoTrace;
  std::string timeline;  // the timeline file that is parsed ("" for a cluster directory
                         // without trace_view.json: usable for run vs run only)
  bool npu = false;      // trace_view conventions (NPU) vs Kineto (GPU)
  int ranks = 1;         // ranks found (cluster directory)
  std::string note;      // one sentence for the user: what was detected and used
};

// Detects the kind of `path` from its content and layout. False with an error (what was
// expected, what to pass) when it is none of the four kinds.
// Example: "x_1_2_ascend_pt" holding ASCEND_PROFILER_OUTPUT/trace_view.json -> kRankDirectory.
bool detect_side(const std::string& path, SideInput& out, io::Diagnostics& diag);

// Parses the side's timeline into `out` (only ProfilerStep#step when given). False when nothing
// usable was read; partial reads return true with errors/warnings in `diag`.
bool load_side(const SideInput& in, std::optional<int64_t> step, Profile& out,
               io::Diagnostics& diag);

}  // namespace cs::compare
