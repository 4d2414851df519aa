#pragma once
// What `clusterscope cluster` is asked to do: how ranks are loaded, where outputs go, the mode,
// the output formats and the TopN settings. Shared by the run (cluster_run.h) and the analyses'
// writer (cluster_outputs.h), which includes this instead of the run.

#include <string>

#include "analysis/recipe_agreement.h"
#include "cluster/cluster_loader.h"
#include "cluster/cluster_mode.h"
#include "stats/topn.h"

namespace cs::cluster {

struct ClusterRunOptions {
  LoadOptions load;
  std::string output_dir;  // OUT (files go to OUT/cluster_analysis_output/)
  Mode mode = Mode::kAll;
  OutputFormats formats = {OutputFormat::kJson, OutputFormat::kCsv, OutputFormat::kHdf5,
                           OutputFormat::kHtml};
  // msprof-analyze's text documents (communication_group.json, cluster_communication.json,
  // cluster_communication_matrix.json, cluster_step_trace_time.csv). False when they go to
  // cluster_analysis.db instead (`-m all --export_type db`, as msprof-analyze writes one or the
  // other); clusterscope's own tables, HDF5 and report are written either way.
  bool msprof_text = true;
  // Where the per-op tables go (cluster_mode.h: OpTables); the command line's default is kHdf5
  // when `formats` has HDF5, else kCsv.
  OpTables op_tables = OpTables::kHdf5;
  int top_n = 15;
  stats::OrderBy order_by = stats::OrderBy::kTotal;
  bool strict = false;
  bool quiet = false;
  bool progress = false;  // phase timings and progress bar on stderr
  // msprof-analyze's diagnostic recipes' verdicts on this job (msprof_analyze/db_all/
  // recipe_verdicts.h, the root's), set beside the diagnosis: recipe_agreement and the summary.
  analysis::RecipeVerdicts recipe_verdicts;
};

}  // namespace cs::cluster
