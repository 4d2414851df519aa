#pragma once
// `clusterscope cluster`: load every rank (cluster_loader.h), then on the root run the analyses the
// mode asks for and write their outputs into OUT/cluster_analysis_output/.

#include <optional>

#include "cluster/cluster_options.h"
#include "mpi/mpi_comm.h"
#include "msprof_analyze/documents/cluster_step_trace.h"

namespace cs::cluster {

// Collective. Returns the exit status (the same on every process): 0 all ranks analysed,
// 3 some skipped or partly read (1 with strict), 1 nothing usable or an output not written.
// Starts OUT/cluster_analysis_output's ledger (io/output_ledger.h: the previous run's files are
// removed first) and handles SIGINT/SIGTERM: at the next checkpoint the .tmp files are removed,
// the root prints one line, and every process exits 130/143 (MPI_Abort under a launcher).
// step_trace (optional): on the root, set to the step trace the analyses built (modes with one).
int run_cluster(const mpi::MpiSession& mpi, const ClusterRunOptions& opts,
                std::optional<documents::BuiltStepTrace>* step_trace = nullptr);

}  // namespace cs::cluster
