#pragma once
// The analyses of `clusterscope cluster`, run on the root after every rank is loaded: which steps
// a mode runs (cluster/analysis_steps.h), in which order, and what is freed between them.

#include <memory>
#include <string>

#include "analysis/comm_summary_stream.h"
#include "cluster/cluster_loader.h"
#include "cluster/cluster_options.h"
#include "cluster/parked_digest.h"
#include "cluster/parked_table.h"
#include "cluster/table_sink.h"
#include "io/diagnostics.h"
#include "msprof_analyze/documents/cluster_step_trace.h"
#include "msprof_analyze/documents/parked_step_trace.h"
#include "report/cluster_page/cluster_report.h"

namespace cs::cluster {

struct OutputContext {
  const ClusterRunOptions& opts;
  std::string out_dir;    // OUT/cluster_analysis_output
  io::Diagnostics& diag;  // write errors
  // Missing ranks of the job were already said (job_coverage.h): the step trace does not warn
  // about them again.
  bool missing_ranks_said = false;
  bool want_matrix_digest = false;  // the report draws the matrix (html)
  bool keep_step_trace = false;     // return cluster_step_trace_time.csv's rows (AnalysisResults)
};

struct AnalysisResults {
  std::string summary;    // plain-words findings for the closing summary (may be empty)
  io::Diagnostics notes;  // warnings of the analyses (unmappable links, odd metadata, ...)
  // What the report draws of the communication matrix (set when `want_matrix_digest` was asked
  // and the mode has a matrix): the table itself is written and freed as soon as it is built.
  // Parked in the root's spill file until the report reads it.
  ParkedMatrixDigest matrix_digest;
  // cluster_step_trace_time.csv's rows, when keep_step_trace was asked and the mode has a step
  // trace (has_step_trace); on disk (the run's spill file) until taken.
  bool has_step_trace = false;
  documents::ParkedStepTrace step_trace;
  // Each rank's host-heaviest operators for the report's drill-down (cluster/host_outputs.h);
  // no rows without a host timeline. Parked in the root's spill file until the report reads it.
  ParkedTable host_rank_ops;
  // The report's digest of comm_rank_summary (cluster/comm_summary_step.h: each row's group and
  // rank, each rank's times), set in the diagnosis modes; the table itself is streamed to the sink.
  bool has_comm_rank_summary = false;
  analysis::CommRankDigest comm_rank_summary;
};

// Threads the root uses for its analyses and writers (see the definition for the policy).
int root_threads(const ClusterRunOptions& opts, const LoadedCluster& loaded);

// Runs the analyses of opts.mode (cluster/analysis_steps.h) in the order of its stage list, which
// is also the one place that frees the ranks' matrix data and unpacks their communication ops
// (hence `loaded` non-const; the analyses see it const). Writes the msprof-analyze JSON/CSV files
// (when the json format is on) and hands clusterscope's own tables to `sink` as each is built.
AnalysisResults run_analyses(LoadedCluster& loaded, const OutputContext& ctx, TableSink& sink,
                             runtime::PhaseLog& log);

}  // namespace cs::cluster
