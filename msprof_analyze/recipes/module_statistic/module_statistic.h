#pragma once
// msprof-analyze's module_statistic recipe: per rank, the nn.Module tree torch_npu recorded as
// mstx ranges (MSTX_EVENTS, eventType 2, domain "Module") mapped to the kernel time of the
// framework ops inside each module (COMPUTE_TASK_INFO, COMMUNICATION_OP and
// COMMUNICATION_SCHEDULE_TASK_INFO through TASK, CONNECTION_IDS and PYTORCH_API), backward modules
// made from the forward/backward op links (module_tree.h). The db export writes the
// ModuleStatistic table of cluster_analysis.db (parentModule, module, opName, kernelList,
// totalKernelDuration(ns), avgKernelDuration(ns), opCount, rankID), ranks in order. The text
// export writes one formatted workbook per rank, module_statistic_{rank}.xlsx, as msprof-analyze's
// ExcelUtils writes it (frame_workbook.h): sheet "Sheet1", a header row (Parent Module, Module,
// Op Name, Kernel List, Total Kernel Duration(ns), Avg Kernel Duration(ns), Op Count) and one
// row per statistic, runs of equal Parent Module and of equal Module merged into one cell.

#include <string>
#include <vector>

#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::module_statistic {

class ModuleStatistic : public Recipe {
 public:
  std::string name() const override { return "module_statistic"; }
  std::string dir_name() const override { return "ModuleStatistic"; }
  bool needs_profiler_db() const override { return true; }
  std::string missing_data_hint() const override {
    return "profile with torch_npu's module ranges (mstx, domain \"Module\") and export db, e.g. "
           "generate --mstx-modules";
  }
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;
};

}  // namespace cs::recipes::module_statistic
