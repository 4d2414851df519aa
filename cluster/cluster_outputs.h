#pragma once
// The analyses of `clusterscope cluster`, run on the root after every rank is loaded: each one a
// pure function from RankData to a table or a file; this file only decides which run for a mode.

#include <memory>
#include <string>

#include "cluster/cluster_loader.h"
#include "cluster/cluster_run.h"
#include "cluster/table_sink.h"
#include "io/diagnostics.h"
#include "report/cluster_report.h"

namespace cs::cluster {

struct OutputContext {
  // Read by every analysis; the matrix analysis also frees each rank's matrix data once it has
  // merged it (nothing else reads it then), so the root's peak holds it and the tables no longer.
  LoadedCluster& loaded;
  const ClusterRunOptions& opts;
  std::string out_dir;    // OUT/cluster_analysis_output
  io::Diagnostics& diag;  // write errors
  // Missing ranks of the job were already said (job_coverage.h): the step trace does not warn
  // about them again.
  bool missing_ranks_said = false;
};

struct AnalysisResults {
  std::string summary;    // plain-words findings for the closing summary (may be empty)
  io::Diagnostics notes;  // warnings of the analyses (unmappable links, odd metadata, ...)
  // What the report draws of the communication matrix (set when `want_matrix_digest` was asked
  // and the mode has a matrix): the table itself is written and freed as soon as it is built.
  std::shared_ptr<const report::MatrixDigest> matrix_digest;
};

// Threads the root uses for its analyses and writers (see the definition for the policy).
int root_threads(const ClusterRunOptions& opts, const LoadedCluster& loaded);

// Runs the analyses of opts.mode; writes the msprof-analyze JSON/CSV files itself (when the json
// format is on) and hands clusterscope's own tables to `sink` as each is built.
AnalysisResults run_analyses(const OutputContext& ctx, TableSink& sink, bool want_matrix_digest,
                             PhaseLog& log);

}  // namespace cs::cluster
