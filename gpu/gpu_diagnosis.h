#pragma once
// Slow ranks and slow groups/links of a GPU job, from the matched collectives
// (docs/gpu_cluster.md, "Diagnosis"):
//   * a slow rank is one the others wait for: it arrives last at >= 80% of its collectives
//     shared with other ranks, and the delay it alone causes (its start - the second-last
//     rank's) adds up to >= 2% of its step time. Cause: "compute" when its computing time is
//     >= 3% above the median of its peers (the ranks it shares collectives with: the same
//     pipeline stage does the same work), else "host" (its GPU idles more than its peers'),
//     else "unknown";
//   * a slow group is a process group whose collectives take >= 1.5x the time per byte of the
//     median group of the same collective type, size, rank stride and message size (power of
//     two; at least 3 such groups); when the slow
//     groups share exactly two ranks, the link between them is named.
// A clean job yields neither.

#include <cstdint>
#include <string>
#include <vector>

#include "gpu/gpu_collectives.h"
#include "gpu/gpu_rank.h"

namespace cs::gpu {

struct SlowRank {
  int rank = -1;
  double last_fraction = 0;  // share of its shared collectives where it came last
  int64_t blame_ns = 0;
  double blame_share = 0;      // blame / the rank's step time
  std::string cause;           // "compute", "host", "unknown"
  double computing_ratio = 0;  // its computing / the median rank's
};

struct SlowGroup {
  std::string group, type, group_ranks;
  int64_t group_size = 0;
  double ns_per_byte = 0;  // median over its instances
  double ratio = 0;        // to the median group of its kind
  std::string link;        // "3-11" when the slow groups locate one link, else ""
};

// `ranks` sorted by rank, `waits` in the same order; `inst` gives each rank's peers.
std::vector<SlowRank> find_slow_ranks(const std::vector<GpuRankSummary>& ranks,
                                      const std::vector<RankWait>& waits,
                                      const std::vector<CollectiveInstance>& inst);

std::vector<SlowGroup> find_slow_groups(const std::vector<CollectiveInstance>& inst);

}  // namespace cs::gpu
