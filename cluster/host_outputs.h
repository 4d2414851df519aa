#pragma once
// The host side of `clusterscope cluster` (-m all, diagnosis): host_ops and free_breakdown
// (host/host_tables.h) handed to the table sink, and the host findings (host/host_findings.h)
// as sentences for the closing summary; ranks without a host timeline said once in a note.

#include <memory>
#include <string>
#include <vector>

#include "cluster/parked_table.h"
#include "cluster/table_sink.h"
#include "io/diagnostics.h"
#include "io/table.h"
#include "load/rank_data.h"
#include "runtime/spill_file.h"

namespace cs::cluster {

struct HostOutputs {
  std::string summary;  // lines for the closing summary ("" for a clean job)
  io::Diagnostics notes;
  // Each rank's host-heaviest operators (the report's drill-down), parked in `spill` a chunk at
  // a time as they are found (164k rows at 16,384 ranks); no table without host data.
  ParkedTable rank_ops;
};

// `ranks` sorted by rank. Puts the tables only when some rank has host data. `spill`: where the
// drill-down waits for the report (null: in memory).
HostOutputs host_outputs(const std::vector<load::RankData>& ranks, TableSink& sink,
                         const std::shared_ptr<runtime::SpillFile>& spill);

}  // namespace cs::cluster
