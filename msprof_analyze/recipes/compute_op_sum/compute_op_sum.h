#pragma once
// msprof-analyze's compute_op_sum recipe: the device durations of every rank's compute tasks
// (ascend_pytorch_profiler_N.db COMPUTE_TASK_INFO joined with TASK, names through STRING_IDS)
// described per (OpType, TaskType) over all ranks (ComputeOpAllRankStats / all_stats.csv) and per
// rank (ComputeOpPerRankStatsByOpType / rank_stats_by_optype.csv), and per rank by (OpName,
// OpType, TaskType, InputShapes) (ComputeOpPerRankStatsByOpName / rank_stats_by_opname.csv),
// each ordered by descending total.

#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::compute_op_sum {

class ComputeOpSum : public Recipe {
 public:
  std::string name() const override { return "compute_op_sum"; }
  std::string dir_name() const override { return "ComputeOpSum"; }
  bool needs_profiler_db() const override { return true; }
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;
};

// The per-rank query (msprof-analyze's SQL, its start range as two parameters), for tests.
const char* compute_op_sum_sql();

}  // namespace cs::recipes::compute_op_sum
