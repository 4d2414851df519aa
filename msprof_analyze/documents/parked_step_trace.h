#pragma once
// cluster_step_trace_time.csv's rows kept for cluster_analysis.db (cli/cluster_command.cpp, -m all
// on DB exports) held on disk until that database's last step writes them: built early in the
// main run's stage 4 beside the communication step's batches, they were about 4.4 MB of the DB
// root's peak at 16,384 ranks, and 9-10 MB of its resident set with the holes they left; held
// through cluster_analysis.db's recipes, 7 MB of their gather's peak (docs/root_memory.md). The
// cells (9 bytes each: nearly all of it) go to a spill file as two blocks written from the arrays
// themselves, with no packed copy; the header, stages and texts stay.
//
//   ParkedStepTrace p(std::move(trace), spill);   // the cells on disk, their memory freed
//   documents::ClusterStepTrace t = p.take();     // read back; p is empty afterwards

#include <memory>
#include <optional>
#include <vector>

#include "msprof_analyze/documents/cluster_step_trace_rows.h"
#include "runtime/spill_file.h"

namespace cs::documents {

class ParkedStepTrace {
 public:
  ParkedStepTrace() = default;
  // Parks `trace`'s cells in `spill`; holds them in memory instead when `spill` is null or cannot
  // be written (parking only saves memory).
  ParkedStepTrace(ClusterStepTrace trace, const std::shared_ptr<runtime::SpillFile>& spill);

  // True while the cells are on disk.
  bool parked() const { return values_.has_value(); }
  // The whole trace, read back when parked. Throws std::runtime_error when the file cannot be
  // read.
  ClusterStepTrace take();
  // The pipeline stages the rows were built with (held in memory, parked or not).
  const std::vector<PyIntSet>& stages() const { return trace_.stages; }

 private:
  ClusterStepTrace trace_;  // without its cells while parked
  std::shared_ptr<runtime::SpillFile> spill_;
  std::optional<runtime::SpillFile::Block> values_, kinds_;
};

}  // namespace cs::documents
