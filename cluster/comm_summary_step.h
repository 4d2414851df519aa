#pragma once
// comm_rank_summary and comm_transport_summary streamed to the table sink rank by rank
// (analysis/comm_summary_stream.h): neither table is held whole on the root; what is returned
// is the report's digest of comm_rank_summary (each row's group and rank, each rank's times).
// Two halves, so that the tables' chunks are not built while the communication batches are held
// (cluster/cluster_outputs.cpp: the sums beside the other analyses, the tables after them):
//
//   std::unique_ptr<analysis::CommSummaryStream> sums = comm_summary_sums(ranks);
//   analysis::CommRankDigest digest = comm_summary_tables(*sums, sink, chunk_rows);

#include <memory>
#include <vector>

#include "analysis/comm_summary_stream.h"
#include "cluster/table_sink.h"
#include "io/table.h"
#include "load/rank_data.h"

namespace cs::cluster {

// Reads each rank's communication ops once (held, packed or spilled), in rank order, and keeps
// their sums (the rows parked on disk: a few bytes per group and rank held).
std::unique_ptr<analysis::CommSummaryStream> comm_summary_sums(
    const std::vector<load::RankData>& ranks);

// Writes both tables of `sums` through `sink` in chunks of `chunk_rows` rows and returns the
// report's digest. Once per `sums`.
analysis::CommRankDigest comm_summary_tables(analysis::CommSummaryStream& sums, TableSink& sink,
                                             size_t chunk_rows);

}  // namespace cs::cluster
