#pragma once
// msprof-analyze's communication_bottleneck recipe (`-m communication_bottleneck --rank_id R
// --top_num N`): for rank R's N longest communication ops, the rank whose instance of the op was
// shortest (it arrived last: the slow NPU) against the one whose was longest (the fast NPU); when
// they differ by 5% or more, the slow rank's node@launch tasks before the op decide host- or
// device-bound (device-bound when more than half waited over 100 µs longer on the device than on
// the host), and the two ranks' tasks before the op, latest first, are matched by name after
// shifting the slow rank's clock by the difference of the two ends, back to the first pair that
// starts within 1 ms: the largest duration and start differences name the cause. Text export:
// CommunicatonBottleneckAnalysis/communication_bottleneck.csv; db: CommunicationBottleneck.
// Only torch_npu's layout has the tables it reads (as in msprof-analyze, which reads
// ascend_pytorch_profiler_{N}.db whatever the layout). docs/msprof-compat.md.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "msprof_analyze/recipes/communication_bottleneck/bottleneck_queries.h"
#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::communication_bottleneck {

class CommunicationBottleneck : public Recipe {
 public:
  std::string name() const override { return "communication_bottleneck"; }
  std::string dir_name() const override { return "CommunicatonBottleneckAnalysis"; }
  bool needs_profiler_db() const override { return true; }
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;
};

// A task of the slow rank matched with the fast rank's task of the same name.
struct TaskDiff {
  int64_t start_ns = 0, duration = 0;
  std::string name;
  int64_t diff_start_ns = 0, diff_duration = 0;
};

// msprof-analyze's matching: both lists sorted by start, latest first; each slow task takes the
// next fast task of its name (after the last one taken); stops at the first pair whose shifted
// start difference is below `threshold` (aligned). `unaligned` is true when none was.
std::vector<TaskDiff> match_tasks(const std::vector<Span>& slow, const std::vector<Span>& fast,
                                  int64_t clock_shift, int64_t threshold, bool& unaligned);

// A nanosecond count in microseconds as msprof-analyze writes it: str(Decimal(ns) / 1000)
// ("1.5", "2", "0.005") and round(ns * 0.001, 3) (a Python float's repr).
std::string us_text(int64_t ns);
std::string us_float(int64_t ns);

}  // namespace cs::recipes::communication_bottleneck
