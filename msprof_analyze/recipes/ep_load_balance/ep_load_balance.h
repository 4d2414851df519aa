#pragma once
// msprof-analyze's ep_load_balance recipe: the tokens each rank's experts received, read from its
// GroupedMatmul kernels' input shapes (COMPUTE_TASK_INFO, the first dimension of every input but
// the last two), summed per rank with the rank's expert-parallel group (META_DATA
// parallel_group_info, the group named "exp"): EPTokensSummary, ranks ascending; and per group
// the spread max - min of its ranks' sums: TopEPTokensInfo, largest spread first, 20 at most.
// Like msprof-analyze it writes only the db export.

#include <cstdint>
#include <optional>
#include <string>

#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::ep_load_balance {

// The tokens of one GroupedMatmul call from its input shapes ("\"T,H;E,H,F;E\"" -> T), as
// msprof-analyze computes them: quotes stripped, parts split by ';' with the empty ones dropped,
// the first dimensions of all but the last two summed; nothing when there is at most one part or
// a first dimension is not a whole number.
std::optional<int64_t> routed_tokens(const std::string& input_shapes);

class EpLoadBalance : public Recipe {
 public:
  std::string name() const override { return "ep_load_balance"; }
  std::string dir_name() const override { return "EPLoadBalance"; }
  bool needs_profiler_db() const override { return true; }
  std::string missing_data_hint() const override {
    return "profile an expert-parallel (MoE) job with shapes recorded (record_shapes=True): "
           "GroupedMatmul kernels and META_DATA parallel_group_info";
  }
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;
};

}  // namespace cs::recipes::ep_load_balance
