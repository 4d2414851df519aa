#pragma once
// cluster_analysis.db for `clusterscope cluster -m all` on DB exports, as msprof-analyze's "all"
// mode writes it with --export_type db: CommunicationGroupMapping, ClusterCommunicationTime,
// ClusterCommunicationBandwidth (the communication_time_sum recipe), ClusterCommunicationMatrix
// (communication_matrix_sum), HostInfo and RankDeviceMap (each rank's HOST_INFO and
// RANK_DEVICE_MAP; profilePath the rank directory's absolute path), ClusterStepTraceTime
// (msprof_analyze/db_all/cluster_db_step_trace: torch_npu ranks' StepTraceTime rows, one whole-run
// row per MindSpore or msprof rank, and the pipeline-stage rows when the p2p groups name them),
// ClusterBaseInfo (the first rank's distributed_args as json.dumps
// writes them, from profiler_metadata.json). Written beside the other outputs as a .tmp directory
// and renamed into place, so a reader never sees half a database.

#include <memory>
#include <optional>
#include <set>
#include <string>

#include "load/discovery.h"
#include "mpi/mpi_comm.h"
#include "msprof_analyze/documents/cluster_step_trace.h"

namespace cs::db_all {

struct ClusterDbOptions {
  std::string input_dir;
  std::string output_dir;  // the database goes to OUT/cluster_analysis_output/cluster_analysis.db
  std::optional<std::set<int>> rank_filter;
  bool quiet = false;
  // The main run's step trace (the root's; null elsewhere or when it built none): its rows are
  // written when they were read from the same ranks' DB exports, instead of reading them again
  // (taken from it then: they wait on disk until the table is written).
  documents::BuiltStepTrace* step_trace = nullptr;
  int threads = 0;  // threads reading the ranks (RecipeRunOptions::threads)
  // The root's discovery below input_dir (job_has_db_export keeps it here; null elsewhere): the
  // verdict recipes read it instead of walking the job again; write_cluster_analysis_db too when
  // it is still set (`cluster` drops it before its main run, so the root does not hold it
  // through that run's peak; the main run writes only below its output directory, which
  // discovery leaves out). A text job's main run takes it over (cluster::LoadOptions).
  std::shared_ptr<load::DiscoveryResult> discovered;
};

// True (on every process) when some rank directory below `input_dir` has a DB export; then
// `cluster -m all` writes cluster_analysis.db by default. Keeps the root's discovery in
// opts.discovered. Collective.
bool job_has_db_export(const mpi::MpiSession& mpi, ClusterDbOptions& opts);

// Collective. Writes the database; returns 0, or 1 (with one line on stderr) when it could not be
// written.
int write_cluster_analysis_db(const mpi::MpiSession& mpi, const ClusterDbOptions& opts);

}  // namespace cs::db_all
