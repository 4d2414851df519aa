#pragma once
// The host side of `clusterscope cluster` (-m all, diagnosis): host_ops and free_breakdown
// (host/host_tables.h) handed to the table sink, and the host findings (host/host_findings.h)
// as sentences for the closing summary; ranks without a host timeline said once in a note.

#include <string>
#include <vector>

#include "cluster/table_sink.h"
#include "io/diagnostics.h"
#include "io/table.h"
#include "load/rank_data.h"

namespace cs::cluster {

struct HostOutputs {
  std::string summary;  // lines for the closing summary ("" for a clean job)
  io::Diagnostics notes;
  io::Table rank_ops{"host_rank_ops"};  // each rank's host-heaviest operators (the drill-down)
};

// `ranks` sorted by rank. Puts the tables only when some rank has host data.
HostOutputs host_outputs(const std::vector<load::RankData>& ranks, TableSink& sink);

}  // namespace cs::cluster
