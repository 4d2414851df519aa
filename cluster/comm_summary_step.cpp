#include "cluster/comm_summary_step.h"

#include <utility>

namespace cs::cluster {

std::unique_ptr<analysis::CommSummaryStream> comm_summary_sums(
    const std::vector<load::RankData>& ranks) {
  auto summary = std::make_unique<analysis::CommSummaryStream>();
  readers::CommunicationFile scratch;  // a rank packed or spilled is read through it
  for (const load::RankData& r : ranks) summary->add(analysis::rank_comm_sums(r, scratch));
  return summary;
}

analysis::CommRankDigest comm_summary_tables(analysis::CommSummaryStream& summary, TableSink& sink,
                                             size_t chunk_rows) {
  // A table without rows is put whole (its columns only), as before.
  std::unique_ptr<TableSink::Stream> rank_rows, transport_rows;
  if (summary.rank_rows() > 0)
    rank_rows = sink.open_stream(summary.rank_schema(), summary.rank_strings());
  else
    sink.put(summary.rank_schema());
  if (summary.transport_rows() > 0)
    transport_rows = sink.open_stream(summary.transport_schema(), summary.transport_strings());
  else
    sink.put(summary.transport_schema());
  analysis::CommRankDigest digest =
      summary.emit([&](io::Table t) { rank_rows->append(std::move(t)); },
                   [&](io::Table t) { transport_rows->append(std::move(t)); }, chunk_rows);
  if (rank_rows) rank_rows->close();
  if (transport_rows) transport_rows->close();
  return digest;
}

}  // namespace cs::cluster
