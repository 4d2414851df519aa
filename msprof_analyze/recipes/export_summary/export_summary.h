#pragma once
// msprof-analyze's export_summary recipe: each rank's api_statistic.csv (CANN_API launches joined
// to their device tasks, per API name: total, count, mean, min, max in ns) and kernel_details.csv
// (every compute task with its PMU counters, every communication op and scheduling task, by start
// time, times in microseconds), rebuilt from the rank's profiler database as pandas builds them.
// msprof-analyze writes them into each rank's ASCEND_PROFILER_OUTPUT (and leaves a file that is
// already there); clusterscope never writes into its inputs: it writes them to
// OUT/cluster_analysis_output/ExportSummary/<rank directory name>/, for either export type.

#include <cstdint>
#include <string>

#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::export_summary {

// Python's true division x / d of two integers: the double nearest the exact quotient.
double python_true_divide(int64_t x, int64_t d);

class ExportSummary : public Recipe {
 public:
  std::string name() const override { return "export_summary"; }
  std::string dir_name() const override { return "ExportSummary"; }
  bool needs_profiler_db() const override { return true; }
  std::string missing_data_hint() const override {
    return "export the profiling data with export_type db (CANN_API, TASK, COMPUTE_TASK_INFO)";
  }
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;
};

}  // namespace cs::recipes::export_summary
