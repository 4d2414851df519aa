#pragma once
// msprof-analyze's free_analysis recipe: per rank, the 10 longest gaps between busy device
// intervals (compute tasks and communication ops merged), each with its likely cause: device
// tasks still running inside it (by type, with the longest remaining gap), an idle PyTorch layer
// (nothing dispatched) or a slow CANN layer (a long launch or a long pause between launches).
// Text: FreeAnalysis/free_analysis.csv; db: table FreeAnalysis.

#include <cstdint>
#include <string>

#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::free_analysis {

class FreeAnalysis : public Recipe {
 public:
  std::string name() const override { return "free_analysis"; }
  std::string dir_name() const override { return "FreeAnalysis"; }
  bool needs_profiler_db() const override { return true; }
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;
};

// msprof-analyze's two per-rank queries: the busy intervals (compute tasks and communication
// ops merged with window functions) and the tasks with their CANN and PyTorch launches. The
// recipe runs them only when msprof_analyze/recipes/free_analysis/free_analysis_scan declines;
// tests compare the two.
const char* free_analysis_busy_sql();
const char* free_analysis_link_sql();

// str(Decimal(ns) / Decimal(1000)): exact microseconds without trailing zeros
// ("1736410576411996.394", "1.5", "2").
std::string ns_to_us_text(int64_t ns);

}  // namespace cs::recipes::free_analysis
