#pragma once
// Collective instances of a GPU job matched across ranks, and what follows from them
// (docs/gpu_cluster.md):
//   * an instance is the seq-th collective of a process group on every rank that took part;
//   * each rank's wait (arrival skew: the last rank's start - its own) and transit (its end - the
//     last rank's start);
//   * latency = the fastest rank's kernel duration (the others include waiting), algorithm
//     bandwidth = bytes / latency and bus bandwidth = algbw x NCCL's factor for the collective
//     and group size n: allreduce 2(n-1)/n, allgather / reducescatter / alltoall (n-1)/n,
//     broadcast / reduce / send / recv 1.

#include <cstdint>
#include <string>
#include <vector>

#include "gpu/gpu_rank.h"

namespace cs::gpu {

struct CollectiveInstance {
  std::string group, type, step, group_ranks;
  int64_t seq = 0;
  int ranks = 0;            // ranks whose traces hold it
  int64_t group_size = -1;  // from the arguments, else `ranks`
  int64_t bytes = -1;
  int64_t latency_ns = 0;  // fastest rank's duration
  int64_t max_dur_ns = 0;
  int64_t start_skew_ns = 0;  // last start - first start
  int64_t end_skew_ns = 0;
  int last_rank = -1;      // the rank the others waited for
  int64_t blame_ns = 0;    // last start - second-last start: the delay the last rank alone caused
  double algbw_gbps = -1;  // GB/s (1e9 bytes/s); -1 when bytes are unknown
  double busbw_gbps = -1;
  std::vector<int> members;  // ranks, ascending
};

// Per rank: the waits and transits of its collectives, and how often the others waited for it.
struct RankWait {
  int rank = -1;
  int64_t collectives = 0;
  int64_t wait_ns = 0;
  int64_t transit_ns = 0;
  int64_t last_arrivals = 0;  // instances (of 2+ ranks) where it came last
  int64_t blame_ns = 0;       // sum of blame_ns over those
  int64_t matched = 0;        // its instances of 2+ ranks
};

// NCCL's bus bandwidth factor. Example: busbw_factor("allreduce", 8) == 1.75.
double busbw_factor(const std::string& type, int64_t n);

// Instances sorted by (group, seq); `ranks` sorted by rank.
std::vector<CollectiveInstance> match_collectives(const std::vector<GpuRankSummary>& ranks);

// Each rank's waits and transits over `inst`.
std::vector<RankWait> rank_waits(const std::vector<GpuRankSummary>& ranks,
                                 const std::vector<CollectiveInstance>& inst);

}  // namespace cs::gpu
