#pragma once
// The first half of the cluster pipeline, shared by `cluster` and run-vs-run `compare`:
//   discover (root) -> partition by bytes (root) -> each process sent its share of the list
//   -> parse (threads per process)
//   -> agree on errors -> gather packed RankData to the root.
// Runs the same with one process and no launcher, or under mpirun with any number of processes;
// the root's result is identical either way.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "io/diagnostics.h"
#include "load/discovery.h"
#include "load/rank_data.h"
#include "load/rank_parser.h"
#include "mpi/mpi_comm.h"
#include "runtime/progress.h"
#include "runtime/spill_file.h"

namespace cs::cluster {

struct LoadOptions {
  std::string input_dir;
  std::optional<std::set<int>> rank_filter;          // --rank-list
  load::DataType data_type = load::DataType::kAuto;  // --data-type
  load::ParseOptions parse;
  int threads = 0;             // parser threads per process; 0 = cores / processes on this node
  bool show_progress = false;  // progress bar on the root
  // Root: hold every rank's communication ops, matrix, operator table and host summary packed
  // (ParkedFile::pack); the analyses read them back a rank at a time (ParkedFile::read).
  bool keep_communication_packed = false;
  // Called with each rank this process parsed, on the parse thread, before the rank is packed
  // for the root (every process): how a process keeps its own ranks' rows
  // (cluster/rank_tables.h). Must be thread-safe; may be empty.
  std::function<void(const load::RankData&)> on_parsed;
  // Root: park every rank's communication ops, matrix, operator table and host summary in a spill
  // file (ParkedFile::spill) as it is parsed or received, so the root's memory does not grow with
  // them; the analyses read them back rank by rank. Implies keep_communication_packed.
  bool spill_communication = false;
  // Root: the job already listed below input_dir with the same rank_filter and data_type (e.g.
  // by db_all::job_has_db_export): load_cluster takes its contents (moves them out) instead of
  // walking the job again, about 1 s at 16,384 ranks. Null: load_cluster lists the job.
  std::shared_ptr<load::DiscoveryResult> discovered;
};

struct LoadedCluster {
  bool fatal = false;         // nothing usable (every process knows)
  std::string fatal_message;  // one line: what is wrong — what to do
  // Root only (empty on other processes):
  std::vector<load::RankData> ranks;     // every rank directory parsed, sorted by rank
  std::vector<load::RankEntry> skipped;  // found but not parsed (no rank id, duplicate, ...)
  io::Diagnostics diagnostics;           // discovery's findings (per-rank ones stay in RankData)
  bool input_is_rank_dir = false;        // -d is one rank's directory (DiscoveryResult)
  uint64_t input_bytes = 0;              // bytes of input files across all ranks
  int threads_per_process = 1;
  int processes_on_root_node = 1;  // the root's node: processes that sleep while it analyses
  // Root, with spill_communication: the file the ranks' communication data is in (kept open as
  // long as the ranks are).
  std::shared_ptr<runtime::SpillFile> spill;
};

// Collective over all processes of `mpi`. Phases are reported through `log` on the root.
LoadedCluster load_cluster(const mpi::MpiSession& mpi, const LoadOptions& opts,
                           runtime::PhaseLog& log);

}  // namespace cs::cluster
