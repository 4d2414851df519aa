#pragma once
// The memory analysis of `cluster -m all|diagnosis` (memory/cluster_memory.h) over the ranks that
// carry memory data (RankData::memory): its tables handed to the sink, its plain-words lines for
// the closing summary. Nothing at all (no table, no line) when no rank has memory data.

#include <string>
#include <vector>

#include "cluster/table_sink.h"
#include "load/rank_data.h"
#include "msprof_analyze/documents/communication_groups.h"

namespace cs::cluster {

// The tables report.html draws from the memory analysis (kept by the sink).
inline const std::vector<std::string> kMemoryReportTables = {"memory_ranks", "memory_steps",
                                                             "memory_curves", "memory_findings"};

// Returns the summary lines ("" when no rank has memory data).
// `groups` (may be null): the communication groups, for memory_groups and the pipeline stages
// where the metadata does not say them.
std::string memory_step(const std::vector<load::RankData>& ranks,
                        const documents::CommGroups* groups, TableSink& sink);

}  // namespace cs::cluster
