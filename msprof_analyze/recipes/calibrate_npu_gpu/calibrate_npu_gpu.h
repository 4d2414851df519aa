#pragma once
// msprof-analyze's calibrate_npu_gpu recipe: per rank, the NPU's kernel time per nn.Module and op
// (module_statistic's rows, msprof_analyze/recipes/module_statistic) against the GPU's from an
// Nsight Systems SQLite export of the same model (--baseline_profiling_path; gpu_modules.h, NPU
// rank N against GPU device N), paired by module path (module_compare.h). The db export writes
// CompareProfileReportRank<N> into cluster_analysis.db for every rank both sides have, and with
// --dump_intermediate_results also NPUProfileRank<N> and GPUProfileRank<N>. The text export
// writes msprof-analyze's formatted workbooks per rank (frame_workbook.h) into CalibrateNpuGpu/:
// compare_profile_report_{rank}.xlsx and, with --dump_intermediate_results, npu_report_{rank}.xlsx
// and gpu_report_{rank}.xlsx. The GPU file is
// read once per process, when the arguments are set: a file that cannot be compared stops the run
// there, said once.

#include <map>
#include <string>
#include <vector>

#include "msprof_analyze/recipes/calibrate_npu_gpu/gpu_modules.h"
#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::calibrate_npu_gpu {

class CalibrateNpuGpu : public Recipe {
 public:
  std::string name() const override { return "calibrate_npu_gpu"; }
  std::string dir_name() const override { return "CalibrateNpuGpu"; }
  bool needs_profiler_db() const override { return true; }
  std::string missing_data_hint() const override {
    return "it needs torch_npu's module ranges (mstx, domain \"Module\") in each rank's db and, "
           "for the same rank numbers, GPU devices in the Nsight Systems export with NVTX module "
           "ranges; e.g. generate --export-type db --nsys-sqlite gpu.sqlite";
  }
  // baseline_profiling_path (required: an Nsight Systems SQLite export, read here), fuzzy_threshold
  // (a number; as in msprof-analyze it only switches fuzzy matching off when 0, the matching
  // itself uses 0.6), dump_intermediate_results ("1"/"true": also the per-side tables). Returns
  // what is wrong with the file ("file: what — what to do") when it cannot be read.
  std::string set_args(const std::map<std::string, std::string>& args) override;
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;

 private:
  std::string baseline_;
  bool fuzzy_ = true;
  bool dump_intermediate_ = false;
  GpuProfile gpu_;  // per device, read by set_args
};

}  // namespace cs::recipes::calibrate_npu_gpu
