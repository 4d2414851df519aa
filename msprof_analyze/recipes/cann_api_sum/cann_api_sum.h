#pragma once
// msprof-analyze's cann_api_sum recipe: per rank, the CANN API calls (ascend_pytorch_profiler_N.db
// CANN_API) summed per API name by SQL with numpy's median/quartiles/std (CannApiSumRank /
// rank_stats.csv), and over all ranks per name: time ratio, totals, mean, the extreme
// quartiles and extremes, a pooled standard deviation and the ranks holding the min and max
// (CannApiSum / all_stats.csv), ordered by descending total time.

#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::cann_api_sum {

class CannApiSum : public Recipe {
 public:
  std::string name() const override { return "cann_api_sum"; }
  std::string dir_name() const override { return "CannApiSum"; }
  bool needs_profiler_db() const override { return true; }
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;
};

}  // namespace cs::recipes::cann_api_sum
