#pragma once
// Splits rank directories across MPI processes by bytes: largest first, each to the process with
// the least bytes so far (ties: lowest process). Every process computes the same assignment from
// the same list, so no assignment needs to be sent.

#include <cstdint>
#include <vector>

#include "load/rank_data.h"

namespace cs::load {

// Returns, for each process 0..processes-1, the indices into `entries` it parses, each list in
// descending size order (big files start first, which balances threads inside a process too).
// Example: sizes {10, 7, 5, 4} over 2 processes -> {{0, 3}, {1, 2}} (10+4 vs 7+5).
// `root_unpack_cost`: the root (process 0) also unpacks every other process's ranks as they
// arrive, at this cost per byte relative to parsing; it starts with that much load
// (root_unpack_cost x the bytes the others would get in an even split), so it parses less.
std::vector<std::vector<size_t>> partition_by_bytes(const std::vector<RankEntry>& entries,
                                                    int processes, double root_unpack_cost = 0);

// The measured root_unpack_cost of the loader: unpacking a rank costs ~15% of parsing it (root
// parse ended 0.08-0.2 s after the other process's in 1.0 s at 1,024 ranks, 2 processes).
inline constexpr double kRootUnpackCost = 0.15;

}  // namespace cs::load
