#pragma once
// Splits rank directories across MPI processes by bytes into contiguous ranges in list order (the
// discovery's rank order): process 0 gets the first range, process 1 the next, and so on. The
// ranges make the largest load (bytes, plus the root's head start) as small as it can be, and
// among the splits that reach it each process takes as near its even share of what remains as it
// can. The split depends only on the list: `cluster` computes it on the root and sends each process
// its share of the list alone (cluster/cluster_loader); other runs compute it everywhere. A
// process's ranks being one range makes its rows in the rank-ordered tables one contiguous slice
// (one hyperslab per column in the collective HDF5 write, docs/parallel_hdf5.md).

#include <cstdint>
#include <vector>

#include "load/rank_data.h"

namespace cs::load {

// Returns, for each process 0..processes-1, the indices into `entries` it parses: one contiguous
// range of indices each, listed in descending size order (big files start first, which balances
// the threads inside a process). A process may get nothing when there are more processes than
// ranks (the last ones then idle). An empty directory counts as one byte.
// Example: sizes {10, 7, 5, 4} over 2 processes -> {{0}, {1, 2, 3}} (10 vs 16: the least largest
// load of a contiguous split).
// `root_unpack_cost`: the root (process 0) also unpacks every other process's ranks as they
// arrive, at this cost per byte relative to parsing; it starts with that much load
// (root_unpack_cost x the bytes the others would get in an even split), so it parses less.
std::vector<std::vector<size_t>> partition_by_bytes(const std::vector<RankEntry>& entries,
                                                    int processes, double root_unpack_cost = 0);

// The measured root_unpack_cost of the loader: unpacking a rank costs ~15% of parsing it (root
// parse ended 0.08-0.2 s after the other process's in 1.0 s at 1,024 ranks, 2 processes).
inline constexpr double kRootUnpackCost = 0.15;

}  // namespace cs::load
