#pragma once
// The analyses of `clusterscope cluster`, run on the root after every rank is loaded: each one a
// pure function from RankData to a table or a file; this file only decides which run for a mode.

#include <string>
#include <vector>

#include "cluster/cluster_loader.h"
#include "cluster/cluster_run.h"
#include "io/diagnostics.h"
#include "io/table.h"

namespace cs::cluster {

struct OutputContext {
  const LoadedCluster& loaded;
  const ClusterRunOptions& opts;
  std::string out_dir;    // OUT/cluster_analysis_output
  io::Diagnostics& diag;  // write errors
};

struct AnalysisResults {
  std::vector<io::Table> tables;  // written as CSV and HDF5 datasets by the caller
  std::string summary;            // plain-words findings for the closing summary (may be empty)
  io::Diagnostics notes;          // warnings of the analyses (unmappable links, odd metadata, ...)
};

// Threads the root uses for its analyses and writers (see the definition for the policy).
int root_threads(const ClusterRunOptions& opts, const LoadedCluster& loaded);

// Runs the analyses of opts.mode; writes the msprof-analyze JSON/CSV files itself (when the json
// format is on) and returns clusterscope's own tables.
AnalysisResults run_analyses(const OutputContext& ctx, PhaseLog& log);

}  // namespace cs::cluster
