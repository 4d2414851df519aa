#pragma once
// msprof-analyze's cluster_time_summary recipe: per (rank, step) the step time (STEP_TIME), the
// step trace split (analysis.db StepTraceTime), the communication time split into the
// transmit stage (the fastest rank's duration of each op) and the wait stage (the rest), and the
// asynchronous memory copies with the part of them that overlaps neither computation nor
// communication (taken out of the free time). Text:
// ClusterTimeSummary/cluster_time_summary_<UTC time>.csv; db: table ClusterTimeSummary.

#include <string>

#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::cluster_time_summary {

class ClusterTimeSummary : public Recipe {
 public:
  std::string name() const override { return "cluster_time_summary"; }
  std::string dir_name() const override { return "ClusterTimeSummary"; }
  bool needs_profiler_db() const override { return true; }
  bool needs_analysis_db() const override { return true; }
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;
};

// msprof-analyze's two per-rank queries, with or without STEP_TIME joined (two parameters: the
// range of the CANN launch times): communication ops with group, name, duration (us) and step;
// compute tasks, communication ops and memory copies with their step, ordered by (start, end).
// The recipe runs them only when
// msprof_analyze/recipes/cluster_time_summary/cluster_time_summary_scan declines.
std::string cluster_time_summary_communication_sql(bool steps);
std::string cluster_time_summary_overlap_sql(bool steps);

// The time (ns) of the memory-copy intervals (type 4) not covered by a computing (0) or
// communication (1) interval, over intervals ordered by start then end (msprof-analyze's
// get_memory_not_overlap sweep), divided by 1000.
double memory_not_overlapped_us(const std::vector<int64_t>& start, const std::vector<int64_t>& end,
                                const std::vector<int64_t>& type);

}  // namespace cs::recipes::cluster_time_summary
