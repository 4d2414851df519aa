#pragma once
// Splits rank directories across MPI processes by bytes: largest first, each to the process with
// the least bytes so far (ties: lowest process). Every process computes the same assignment from
// the same list, so no assignment needs to be sent.

#include <cstdint>
#include <vector>

#include "cluster/rank_data.h"

namespace cs::cluster {

// Returns, for each process 0..processes-1, the indices into `entries` it parses, each list in
// descending size order (big files start first, which balances threads inside a process too).
// Example: sizes {10, 7, 5, 4} over 2 processes -> {{0, 3}, {1, 2}} (10+4 vs 7+5).
std::vector<std::vector<size_t>> partition_by_bytes(const std::vector<RankEntry>& entries,
                                                    int processes);

}  // namespace cs::cluster
