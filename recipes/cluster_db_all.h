#pragma once
// cluster_analysis.db for `clusterscope cluster -m all` on DB exports, as msprof-analyze's "all"
// mode writes it with --export_type db: CommunicationGroupMapping, ClusterCommunicationTime,
// ClusterCommunicationBandwidth (the communication_time_sum recipe), ClusterCommunicationMatrix
// (communication_matrix_sum), HostInfo and RankDeviceMap (each rank's HOST_INFO and
// RANK_DEVICE_MAP; profilePath the rank directory's absolute path), ClusterStepTraceTime
// (recipes/cluster_db_step_trace: torch_npu ranks' StepTraceTime rows, one whole-run row per
// MindSpore or msprof rank, and the pipeline-stage rows when the p2p groups name them),
// ClusterBaseInfo (the first rank's distributed_args as json.dumps
// writes them, from profiler_metadata.json). Written beside the other outputs as a .tmp directory
// and renamed into place, so a reader never sees half a database.

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "mpi/mpi_comm.h"
#include "msprof/cluster_step_trace.h"

namespace cs::recipes {

struct ClusterDbOptions {
  std::string input_dir;
  std::string output_dir;  // the database goes to OUT/cluster_analysis_output/cluster_analysis.db
  std::optional<std::set<int>> rank_filter;
  bool quiet = false;
  // The main run's step trace (the root's; null elsewhere or when it built none): its rows are
  // written when they were read from the same ranks' DB exports, instead of reading them again.
  const cluster::BuiltStepTrace* step_trace = nullptr;
  int threads = 0;  // threads reading the ranks (RecipeRunOptions::threads)
};

// True (on every process) when some rank directory below `input_dir` has a DB export; then
// `cluster -m all` writes cluster_analysis.db by default. Collective.
bool job_has_db_export(const cluster::MpiSession& mpi, const ClusterDbOptions& opts);

// Writes cluster_analysis.db in two parts: first what needs nothing of the main run (`cluster -m
// all`'s parse and analyses) — the two communication recipes' tables into the .tmp database and
// the ranks' host rows — then the rest with the main run's step trace. With one process (no
// launcher) the first part can run beside the main run (run_ahead on the calling thread, the main
// run on another); its messages are held back and printed by finish(), where the serial run prints
// them, so what is printed and written is the same.
// The recipes' reduces, which hold the most memory, wait for the main run (`before_reduce`).
//   ClusterDbWriter w(mpi, opts);
//   if (w.can_run_ahead()) { main run on a thread; w.run_ahead(join); } else { main run }
//   if (main run ok) w.finish(step_trace);  // else ~ClusterDbWriter removes what ran ahead
class ClusterDbWriter {
 public:
  ClusterDbWriter(const cluster::MpiSession& mpi, ClusterDbOptions opts);
  // Removes what run_ahead() wrote when finish() was not called (the main run failed), and the
  // output directory when run_ahead() made it and it is still empty.
  ~ClusterDbWriter();
  ClusterDbWriter(const ClusterDbWriter&) = delete;
  ClusterDbWriter& operator=(const ClusterDbWriter&) = delete;

  // True with one process and no launcher: run_ahead() exchanges nothing, so it may run beside
  // the main run.
  bool can_run_ahead() const;
  // The first part, its messages held back for finish(); `before_reduce` is called (on this
  // thread) before the recipes' reduces, or at the end when there are none. Only when
  // can_run_ahead().
  void run_ahead(const std::function<void()>& before_reduce);
  // Collective. The first part unless it ran ahead, then the database completed with the main
  // run's step trace (the root's; null elsewhere or when it built none) and renamed into place;
  // returns 0, or 1 (with one line on stderr) when it could not be written.
  int finish(const cluster::BuiltStepTrace* step_trace);

  struct Prework;

 private:
  void prepare(const std::function<void()>& before_reduce);

  const cluster::MpiSession& mpi_;
  ClusterDbOptions opts_;
  std::unique_ptr<Prework> pre_;
  bool ran_ahead_ = false;
  bool out_dir_existed_ = true;
  bool finished_ = false;
};

// Collective. Writes the database (a ClusterDbWriter finished with opts.step_trace); returns 0,
// or 1 (with one line on stderr) when it could not be written.
int write_cluster_analysis_db(const cluster::MpiSession& mpi, const ClusterDbOptions& opts);

}  // namespace cs::recipes
