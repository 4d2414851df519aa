#pragma once
// rank_manifest: one row per rank directory found, parsed or not, with its status and problems.

#include <vector>

#include "io/table.h"
#include "load/rank_data.h"

namespace cs::load {

// Columns: rank,path,framework,status,files_read,bytes_read,problems,export (problems joined
// by "; "; export: text or db, which of the rank's exports was read).
// Rows: parsed ranks in rank order, then the skipped directories in discovery order.
io::Table build_manifest_table(const std::vector<RankData>& ranks,
                               const std::vector<RankEntry>& skipped);

// Counts by status across parsed and skipped directories.
struct StatusCounts {
  size_t ok = 0, partial = 0, skipped = 0;
};
StatusCounts count_statuses(const std::vector<RankData>& ranks,
                            const std::vector<RankEntry>& skipped);

}  // namespace cs::load
