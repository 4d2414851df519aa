#pragma once
// msprof-analyze's slow_link recipe: every rank's communication ops (COMMUNICATION_OP with their
// data size from ENUM_HCCL_DATA_TYPE and the element count). A collective instance's transmit
// time is the shortest duration among its ranks (send/receive get 0); instances are grouped by
// (op type, data size, ranks taking part), and a group any of whose transmit times lies beyond
// 3 sigma of the group's mean keeps all its rows (SlowLinkOps). SlowLinkSum describes each kept
// group's transmit times, with its offset ratio (largest distance from the mean over the std),
// the top N by that ratio (RecipeOutput::top_num, --top_num; 0 or less: 15, as msprof-analyze), and
// the ranks of the longest and shortest. Like msprof-analyze it writes only the db export (its text
// export writes nothing).
// The reduce walks the ranks' rows one rank at a time (slow_link_reduce.h), never concatenated.

#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::slow_link {

class SlowLink : public Recipe {
 public:
  std::string name() const override { return "slow_link"; }
  std::string dir_name() const override { return "SlowLink"; }
  bool needs_profiler_db() const override { return true; }
  // Each rank's rows may be parked on disk at the root (the reduce walks them rank by rank).
  std::vector<std::string> parkable_frames() const override { return {"rows"}; }
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;
};

// msprof-analyze's z-score test: true when a value lies above mean + 3 sigma or below
// mean - 3 sigma (numpy's mean and population std); false when the std is 0.
bool has_z_score_outlier(const std::vector<double>& values);

}  // namespace cs::recipes::slow_link
