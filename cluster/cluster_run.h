#pragma once
// `clusterscope cluster`: load every rank (cluster_loader.h), then on the root run the analyses the
// mode asks for and write their outputs into OUT/cluster_analysis_output/.

#include <optional>
#include <set>
#include <string>

#include "cluster/cluster_loader.h"
#include "cluster/cluster_mode.h"
#include "mpi/mpi_comm.h"
#include "msprof/cluster_step_trace.h"
#include "stats/topn.h"

namespace cs::cluster {

struct ClusterRunOptions {
  LoadOptions load;
  std::string output_dir;  // OUT (files go to OUT/cluster_analysis_output/)
  Mode mode = Mode::kAll;
  OutputFormats formats = {OutputFormat::kJson, OutputFormat::kCsv, OutputFormat::kHdf5,
                           OutputFormat::kHtml};
  int top_n = 15;
  stats::OrderBy order_by = stats::OrderBy::kTotal;
  bool strict = false;
  bool quiet = false;
  bool progress = false;  // phase timings and progress bar on stderr
};

// Collective. Returns the exit status (the same on every process): 0 all ranks analysed,
// 3 some skipped or partly read (1 with strict), 1 nothing usable or an output not written.
// Starts OUT/cluster_analysis_output's ledger (io/output_ledger.h: the previous run's files are
// removed first) and handles SIGINT/SIGTERM: at the next checkpoint the .tmp files are removed,
// the root prints one line, and every process exits 130/143 (MPI_Abort under a launcher).
// step_trace (optional): on the root, set to the step trace the analyses built (modes with one).
int run_cluster(const MpiSession& mpi, const ClusterRunOptions& opts,
                std::optional<BuiltStepTrace>* step_trace = nullptr);

}  // namespace cs::cluster
