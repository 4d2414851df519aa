#pragma once
// slow_link's reduce on the root without the ranks' rows concatenated (issue 38, docs/
// root_memory.md "Done: slow_link reduced rank by rank"). The ranks' "rows" frames, held or parked
// on disk (msprof_analyze/recipes/parked_frames.h), are walked in rank order: a first walk keeps
// per collective instance (group, op name) its shortest duration and its number of ranks, a second
// per group (op type, data size, ranks) its transmit times in row order and what SlowLinkSum needs
// (total, longest and shortest with their ranks, the kinds of its cells). The groups with a
// z-score outlier are then known, and a third walk sorts their rows into the groups
// (msprof_analyze/recipes/rows_by_group.h: on disk past `batch_rows` rows), which SlowLinkOps is
// written from group after group. Same tables, same bytes as the reduce over the concatenation.

#include <cstddef>
#include <vector>

#include "io/diagnostics.h"
#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::slow_link {

// The rows of SlowLinkOps held in memory at most before they go to disk, and written at a time.
inline constexpr size_t kOpsBatchRows = size_t{1} << 15;

// Writes SlowLinkSum and SlowLinkOps of the db export from `parts` (their "rows" frames, held or
// parked) to out.db_path("SlowLink"). False with an error in `diag` when a table cannot be written
// or a parked frame read back.
bool reduce_slow_links(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                       io::Diagnostics& diag, size_t batch_rows = kOpsBatchRows);

}  // namespace cs::recipes::slow_link
