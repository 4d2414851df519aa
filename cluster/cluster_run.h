#pragma once
// `clusterscope cluster`: load every rank (cluster_loader.h), then on the root run the analyses the
// mode asks for and write their outputs into OUT/cluster_analysis_output/.

#include <set>
#include <string>

#include "cluster/cluster_loader.h"
#include "mpi/mpi_comm.h"

namespace cs::cluster {

struct ClusterRunOptions {
  LoadOptions load;
  std::string output_dir;  // OUT (files go to OUT/cluster_analysis_output/)
  std::string mode =
      "all";  // all|communication_time|communication_matrix|step_trace|operators|diagnosis
  std::set<std::string> formats = {"json", "csv", "hdf5", "html"};
  int top_n = 15;
  std::string order_by = "total";  // total|mean|max|cv
  bool strict = false;
  bool quiet = false;
  bool progress = false;  // phase timings and progress bar on stderr
};

// The analysis modes `-m` accepts.
bool is_valid_mode(const std::string& mode);
// Which per-rank files a mode needs.
ParseOptions parse_options_for_mode(const std::string& mode, ParseOptions base);

// Collective. Returns the exit status (the same on every process): 0 all ranks analysed,
// 3 some skipped or partly read (1 with strict), 1 nothing usable.
int run_cluster(const MpiSession& mpi, const ClusterRunOptions& opts);

}  // namespace cs::cluster
