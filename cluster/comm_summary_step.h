#pragma once
// comm_rank_summary and comm_transport_summary streamed to the table sink rank by rank
// (analysis/comm_summary_stream.h): neither table is held whole on the root; what is returned
// is the report's digest of comm_rank_summary (each row's group and rank, each rank's times).
//
//   analysis::CommRankDigest digest = comm_summary_step(ranks, sink, chunk_rows);

#include <vector>

#include "analysis/comm_summary_stream.h"
#include "cluster/table_sink.h"
#include "io/table.h"
#include "load/rank_data.h"

namespace cs::cluster {

// Reads each rank's communication ops once (held, packed or spilled), in rank order; writes
// both tables through `sink` in chunks of `chunk_rows` rows; returns the report's digest.
analysis::CommRankDigest comm_summary_step(const std::vector<load::RankData>& ranks,
                                           TableSink& sink, size_t chunk_rows);

}  // namespace cs::cluster
