#pragma once
// msprof-analyze's pp_chart recipe: each rank's forward and backward micro-batches, the
// StepTaskInfo table (name, startNs, endNs, type) MindStudio Insight draws its pipeline chart
// from. Every MSTX event whose message contains "forward" or "backward" (any case), or
// "WeightGradStore_pop", gives the device span of its task (TASK by connectionId), in start
// order: "FP" (type 0) when the message contains "forward", else "BP" (1) — the 1F1B view. As
// msprof-analyze, a rank without COMMUNICATION_OP first gets mstx2commop's, and the send/receive
// ops get p2p_pairing's opConnectionId. msprof-analyze writes all of it into each rank's database
// in place, for the db export only; clusterscope writes a copy of each database it would change
// under cluster_analysis_output/PPChart/<the database's path in the job>. When the first rank's
// META_DATA pp_info says pp_type "dualpipev", the ranges are named by the DualPipeV schedule of
// each rank's stage instead (dualpipev_chart.h).

#include <string>
#include <vector>

#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::pp_chart {

class PPChart : public Recipe {
 public:
  std::string name() const override { return "pp_chart"; }
  std::string dir_name() const override { return "PPChart"; }
  bool needs_profiler_db() const override { return true; }
  std::string missing_data_hint() const override {
    return "profile with mstx ranges around each forward and backward micro-batch on the device "
           "(MSTX_EVENTS tied to a TASK), e.g. generate --mstx-passes";
  }
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;
};

// "FP" when `msg` contains "forward" in any case, else "BP" (msprof-analyze's 1F1B naming).
const char* pass_name(const std::string& msg);

}  // namespace cs::recipes::pp_chart
