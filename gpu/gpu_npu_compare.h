#pragma once
// `clusterscope compare BASE COMPARISON` with a GPU job (per-rank Kineto traces) on one side and
// an Ascend cluster (rank directories) of the same model on the other: GPU vs NPU per rank and
// category of the step breakdown (computing, communication not overlapped, free, step), with the
// noise-aware verdicts of gpu_compare.h (docs/gpu_cluster.md, "GPU vs NPU").

#include <string>
#include <vector>

#include "gpu/gpu_rank.h"
#include "io/table.h"
#include "load/rank_data.h"
#include "mpi/mpi_comm.h"

namespace cs::gpu {

// Per step of one rank, the values (µs) of computing, comm_not_overlapped, free, step.
// GPU: free holds the GPU's idle time plus memcpy/memset outside kernels, so the three parts add
// up to the step window; NPU: the step_trace_time columns Computing, Communication(Not
// Overlapped) and Free, step their sum (msprof's convention).
std::vector<std::vector<double>> gpu_rank_categories(const GpuRankSummary& r);
std::vector<std::vector<double>> npu_rank_categories(const load::RankData& r);

// rank_compare: one row per (rank, category) of the ranks both sides hold, base first:
// rank, category, base_us, comparison_us (means per step), diff_us, diff_ratio, verdict.
io::Table gpu_npu_compare_table(const std::vector<GpuRankSummary>& gpu,
                                const std::vector<load::RankData>& npu, bool gpu_is_base);

struct GpuNpuCompareOptions {
  std::string gpu_dir, npu_dir;
  bool gpu_is_base = true;
  std::string output_dir;  // files go to output_dir/comparison_output/
  int threads = 0;
  bool quiet = false;
};

// The whole command (the Ascend side loaded across the processes of `mpi`, as `cluster` does);
// returns an exit status.
int run_gpu_npu_compare(const mpi::MpiSession& mpi, const GpuNpuCompareOptions& opts);

}  // namespace cs::gpu
