#pragma once
// msprof-analyze's mstx_sum recipe: the mstx annotations of every rank (MSTX_EVENTS of
// ascend_pytorch_profiler_N.db) as durations. Marks "<msg>_start" / "<msg>_stop" on one thread
// pair up (the latest open start), ranges tied to a device task (connectionId) give their host
// and device spans; each is placed in the STEP_TIME step its host start falls in. Outputs
// MSTXMarkStats / mark_stats.csv (one row per annotation with its share of the rank's total) and,
// per step and name, the statistics over ranks of the framework, CANN and device durations
// (MSTXAll{Framework,Cann,Device}Stats / all_{fwk,cann,device}_stats.csv; text in milliseconds).

#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::mstx_sum {

class MstxSum : public Recipe {
 public:
  std::string name() const override { return "mstx_sum"; }
  std::string dir_name() const override { return "MstxSum"; }
  bool needs_profiler_db() const override { return true; }
  std::string missing_data_hint() const override {
    return "the job recorded no mstx marks and no mstx ranges on a device stream: annotate the "
           "training script (torch_npu.npu.mstx.mark / range_start with a stream) and profile "
           "with mstx enabled";
  }
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;
};

}  // namespace cs::recipes::mstx_sum
