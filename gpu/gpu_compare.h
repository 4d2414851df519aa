#pragma once
// `clusterscope compare BASE COMPARISON` on two GPU jobs (directories of per-rank Kineto traces):
// run vs run, per rank and category of the step breakdown and per collective type
// (docs/gpu_cluster.md, "compare"). A difference counts as a regression or an improvement only
// when it is >= 5% of the base and larger than twice the step-to-step spread (standard deviation)
// of that figure on either side: noise between steps is not a finding.

#include <string>
#include <vector>

#include "gpu/gpu_rank.h"
#include "io/table.h"

namespace cs::gpu {

struct GpuCompareOptions {
  std::string base_dir, comparison_dir;
  std::string output_dir;  // files go to output_dir/comparison_output/
  int threads = 0;
  bool quiet = false;
};

// rank_compare: one row per (rank, category) of the ranks both runs hold: rank, category
// (computing, comm_not_overlapped, overlapped, communication, memory, free, step), base_us and
// comparison_us (means per step), diff_us, diff_ratio, verdict ("regression", "improvement",
// "same").
io::Table rank_compare_table(const std::vector<GpuRankSummary>& base,
                             const std::vector<GpuRankSummary>& comparison);

// collective_compare: one row per collective type: instances and mean latency (the fastest
// rank's duration) and mean bus bandwidth on each side, diff_us, diff_ratio, verdict (latency
// noise: the spread of its instances).
io::Table collective_compare_table(const std::vector<GpuRankSummary>& base,
                                   const std::vector<GpuRankSummary>& comparison);

// Discovers and summarizes a GPU job's traces on `threads` threads, one summary per rank (sorted);
// ok = false when none is usable (the messages printed unless `quiet`).
std::vector<GpuRankSummary> load_gpu_job(const std::string& dir, int threads, bool quiet, bool& ok);

// The noise-aware verdict on two samples of one figure (one value per step): "regression" when
// the comparison's mean is higher by >= 5% of the base's and by more than twice the larger
// standard deviation, "improvement" when lower by as much, else "same".
std::string noise_verdict(const std::vector<double>& base, const std::vector<double>& comparison);

// The whole command; returns an exit status.
int run_gpu_compare(const GpuCompareOptions& opts);

}  // namespace cs::gpu
