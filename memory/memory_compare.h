#pragma once
// Memory run vs run (`clusterscope compare RUN_A RUN_B`): the peak of every rank in both runs and
// the allocations of every operator, each with the difference (comparison - base).

#include <string>
#include <vector>

#include "io/table.h"
#include "memory/cluster_memory.h"

namespace cs::memory {

// memory_rank_diff: rank, base_peak_mb, comparison_peak_mb, diff_mb, diff_pct, base_reserved_mb,
// comparison_reserved_mb (ranks of either run; NaN where a run lacks the rank's memory).
io::Table memory_rank_diff_table(const std::vector<RankMemoryRef>& base,
                                 const std::vector<RankMemoryRef>& comparison);

// memory_operator_diff: operator, base_mb, comparison_mb, diff_mb, base_calls, comparison_calls
// (bytes allocated over all ranks), largest absolute difference first.
io::Table memory_operator_diff_table(const std::vector<RankMemoryRef>& base,
                                     const std::vector<RankMemoryRef>& comparison);

// One line for the terminal: the rank whose peak changed most (`pair`: the two profiles' peaks),
// or "" without memory data.
std::string memory_diff_line(const io::Table& rank_diff, bool pair = false);

}  // namespace cs::memory
