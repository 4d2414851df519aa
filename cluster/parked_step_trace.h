#pragma once
// cluster_step_trace_time.csv's rows kept for cluster_analysis.db (cli/cluster_command.cpp, -m all
// on DB exports) held on disk while the rest of the main run works: built early in stage 4 beside
// the communication step's batches, read only once the main run is over, they were about 4.4 MB
// of the DB root's peak at 16,384 ranks, and 9-10 MB of its resident set with the holes they left
// (docs/root_memory.md). The cells (9 bytes each: nearly all of it) go to the spill file as two
// blocks written from the arrays themselves, with no packed copy; the header, stages and texts
// stay.
//
//   ParkedStepTrace p(std::move(trace), spill);   // the cells on disk, their memory freed
//   documents::ClusterStepTrace t = p.take();     // read back; p is empty afterwards

#include <memory>
#include <optional>

#include "msprof_analyze/documents/cluster_step_trace_rows.h"
#include "runtime/spill_file.h"

namespace cs::cluster {

class ParkedStepTrace {
 public:
  ParkedStepTrace() = default;
  // Parks `trace`'s cells in `spill`; holds them in memory instead when `spill` is null or cannot
  // be written (parking only saves memory).
  ParkedStepTrace(documents::ClusterStepTrace trace,
                  const std::shared_ptr<runtime::SpillFile>& spill);

  // True while the cells are on disk.
  bool parked() const { return values_.has_value(); }
  // The whole trace, read back when parked. Throws std::runtime_error when the file cannot be
  // read.
  documents::ClusterStepTrace take();

 private:
  documents::ClusterStepTrace trace_;  // without its cells while parked
  std::shared_ptr<runtime::SpillFile> spill_;
  std::optional<runtime::SpillFile::Block> values_, kinds_;
};

}  // namespace cs::cluster
