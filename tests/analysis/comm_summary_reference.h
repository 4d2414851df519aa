#pragma once
// Test helpers for the communication summaries (analysis/comm_summary.h):
//  - the whole-table reference: both tables built in one pass over every rank's ops, the
//    plainest way (never used by `cluster`, which streams them);
//  - the stream (analysis/comm_summary_stream.h) run to the end and its chunks joined into
//    whole tables, with what the test checks about the chunks.

#include <vector>

#include "analysis/comm_summary_stream.h"
#include "io/table.h"
#include "load/rank_data.h"

namespace cs::testing {

// comm_rank_summary / comm_transport_summary of ranks sorted by rank, in one pass.
io::Table reference_comm_rank_summary(const std::vector<load::RankData>& ranks);
io::Table reference_comm_transport_summary(const std::vector<load::RankData>& ranks);

// Both tables as CommSummaryStream gives them, joined, and the report's digest.
struct StreamedSummaries {
  io::Table ranks, transports;
  analysis::CommRankDigest digest;
  size_t rank_chunks = 0, transport_chunks = 0, largest_chunk = 0;
  std::vector<io::StringColumnSize> rank_strings, transport_strings;
};
StreamedSummaries stream_comm_summaries(
    const std::vector<load::RankData>& ranks,
    size_t park_bytes = analysis::CommSummaryStream::kParkBytes,
    size_t chunk_rows = analysis::CommSummaryStream::kChunkRows);

}  // namespace cs::testing
