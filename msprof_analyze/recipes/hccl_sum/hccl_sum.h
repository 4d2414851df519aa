#pragma once
// msprof-analyze's hccl_sum recipe: the durations of every rank's communication ops
// (ascend_pytorch_profiler_N.db COMMUNICATION_OP, names through STRING_IDS) described per op
// type for all ranks (HcclAllRankStats / all_stats.csv) and per rank (HcclPerRankStats /
// rank_stats.csv), the 15 op names of highest mean with the ranks of their fastest and slowest
// instance (HcclTopOpStats / top_op_stats.csv), and each group's ranks (HcclGroupNameMap /
// group_name_map.csv).

#include <cstdint>

#include "msprof_analyze/recipes/recipe.h"

#include "db/database.h"

namespace cs::recipes::hccl_sum {

class HcclSum : public Recipe {
 public:
  std::string name() const override { return "hccl_sum"; }
  std::string dir_name() const override { return "HcclSum"; }
  bool needs_profiler_db() const override { return true; }
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;
};

// hccl_sum's per-rank query (msprof-analyze's communication-op export; its start range bound as
// two parameters).
const char* hccl_sum_sql();

}  // namespace cs::recipes::hccl_sum
