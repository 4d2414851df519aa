#pragma once
// msprof-analyze's cluster_time_compare_summary recipe: the ClusterTimeSummary table of this job
// (-d DIR: DIR/cluster_analysis_output/cluster_analysis.db, as cluster_time_summary writes it)
// joined by (rank, step) to the one of a base job (--bp BASE), each time column followed by its
// base value and the difference; rows without a base match dropped (ClusterTimeCompareSummary,
// db export only). It reads no rank database: the map step has nothing to do.

#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::cluster_time_compare_summary {

class ClusterTimeCompareSummary : public Recipe {
 public:
  std::string name() const override { return "cluster_time_compare_summary"; }
  std::string dir_name() const override { return "ClusterTimeCompareSummary"; }
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;
};

// The comparison of two ClusterTimeSummary frames (columns as read from the tables): current's
// rows in order, each with its base rows of the same (rank, step); per time column present in
// both, `col`, `colBase`, `colDiff`; rows with any NULL left out. Dtypes as pandas gives them
// (a column with a NULL or a row without a base match before the drop is float).
frame::Frame compare_time_summaries(const frame::Frame& current, const frame::Frame& base);

}  // namespace cs::recipes::cluster_time_compare_summary
