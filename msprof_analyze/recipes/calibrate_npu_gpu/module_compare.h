#pragma once
// The comparison msprof-analyze's calibrate_npu_gpu makes for one rank (its agg_kernel and
// Comparator.compare): each side's kernel time per (parent module, module, op); the sides paired
// by module path, "<parent>/<module>" (the NPU's with "Ascend" removed), a path the GPU lacks
// matched, when fuzzy matching is on, to the GPU path of the highest difflib ratio >= 0.6
// ("fuzzy"; else "rule"); within one path the ops paired by rank of total time. Every row gets
// each side's share of its side's total time and the path's NPU/GPU time ratio and difference,
// and the rows are sorted by GPU parent module, then difference and GPU time (descending; a
// blank sorts above the numbers).

#include <cstdint>
#include <string>
#include <vector>

#include "frame/frame.h"
#include "msprof_analyze/recipes/calibrate_npu_gpu/gpu_modules.h"

namespace cs::recipes::calibrate_npu_gpu {

// One (parent, module, op) of one side: its kernels ("a, b"), total and mean kernel time (us)
// and how many op calls.
struct OpRow {
  std::string parent, module, op, kernels;
  double total_us = 0, avg_us = 0;
  int64_t count = 0;
};

// One row of the NPU's module statistic (msprof_analyze/recipes/module_statistic).
struct NpuStat {
  std::string parent, module, op, kernels;
  double total_ns = 0, avg_ns = 0;
  int64_t count = 0;
};

// agg_kernel over the GPU rows of one device: per (parent, module, op) in that order, its kernels
// by total time (descending), summed; the mean is that of the kernels' means.
std::vector<OpRow> aggregate_gpu(const std::vector<GpuKernelStat>& rows);
// agg_kernel over the NPU rows: per (parent, module, op) in that order, its rows in their order.
std::vector<OpRow> aggregate_npu(const std::vector<NpuStat>& rows);

// The NPUProfileRank<N> / GPUProfileRank<N> table (--dump_intermediate_results).
frame::Frame profile_frame(const std::vector<OpRow>& rows);

// The CompareProfileReportRank<N> table. `fuzzy`: match paths the GPU lacks.
frame::Frame compare_frame(const std::vector<OpRow>& gpu, const std::vector<OpRow>& npu,
                           bool fuzzy);

}  // namespace cs::recipes::calibrate_npu_gpu
