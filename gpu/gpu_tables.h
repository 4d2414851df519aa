#pragma once
// The tables `cluster` writes for a GPU job (docs/interface.md, "GPU jobs"): each an io::Table,
// written as CSV and as a dataset group of cluster_analysis.h5.

#include <vector>

#include "gpu/gpu_collectives.h"
#include "gpu/gpu_diagnosis.h"
#include "gpu/gpu_rank.h"
#include "io/table.h"

namespace cs::gpu {

// step_trace: one row per (step, rank): step, rank, computing_us, comm_not_overlapped_us,
// overlapped_us, communication_us, free_us, memory_us, step_us, kernel_us.
io::Table step_trace_table(const std::vector<GpuRankSummary>& ranks);

// collectives: one row per matched instance.
io::Table collectives_table(const std::vector<CollectiveInstance>& inst);

// collective_groups: one row per (group, type): instances, bytes, latency, algbw and busbw
// (total bytes / total latency).
io::Table collective_groups_table(const std::vector<CollectiveInstance>& inst);

// rank_waits: one row per rank.
io::Table rank_waits_table(const std::vector<RankWait>& waits);

// kernels_topn: the `top_n` kernel names of most time over every rank, with exact quantiles
// (linear interpolation, as numpy) of the time per rank over the ranks that ran them.
io::Table kernels_topn_table(const std::vector<GpuRankSummary>& ranks, int top_n);

io::Table slow_ranks_table(const std::vector<SlowRank>& slow);
io::Table slow_groups_table(const std::vector<SlowGroup>& slow);

// Linear-interpolation quantile of sorted `v` (numpy's default). Example: {1,2,3,4}, 0.5 -> 2.5.
double quantile_sorted(const std::vector<double>& v, double q);

}  // namespace cs::gpu
