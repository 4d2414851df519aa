#pragma once
// msprof-analyze's operator_mfu recipe: per rank, the MFU of every compute kernel whose framework
// op torch_npu recorded FLOPs for (`with_flops=True`: mstx ranges in the domain "mfu_flops",
// kernel_mfu.h), against the chip's peak for the kernel's input data type (chip_peak.h); and,
// when the rank has nn.Module ranges (mstx domain "Module"), module_statistic's module tree
// (module_statistic/module_tree.h, without backward modules) with each op's average MFU per
// kernel position ("81.25%,40.5%"). The db export writes OperatorMFU and ModuleMFU to
// cluster_analysis.db, ranks in order; the text export writes msprof-analyze's formatted workbooks
// per rank, OperatorMfu/operator_mfu_kernel_{rank}.xlsx and operator_mfu_module_{rank}.xlsx
// (frame_workbook.h). MindSpore's and CANN msprof's databases have no
// framework ops (PYTORCH_API): their ranks are skipped with a warning, as msprof-analyze finds
// no kernel data there either.

#include <string>
#include <vector>

#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::operator_mfu {

class OperatorMfu : public Recipe {
 public:
  std::string name() const override { return "operator_mfu"; }
  std::string dir_name() const override { return "OperatorMfu"; }
  bool needs_profiler_db() const override { return true; }
  std::string missing_data_hint() const override {
    return "profile with torch_npu's with_flops=True, mstx on and export_type db (e.g. generate "
           "--mfu-flops); module MFU also needs module ranges (--mstx-modules)";
  }
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;

 private:
  // The text export: each used rank's kernel and module workbooks.
  bool write_workbooks(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                       io::Diagnostics& diag) const;
};

}  // namespace cs::recipes::operator_mfu
