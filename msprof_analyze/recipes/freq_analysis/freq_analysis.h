#pragma once
// msprof-analyze's freq_analysis recipe: each rank's distinct AI Core frequencies (AICORE_FREQ,
// the rank from RANK_DEVICE_MAP). A rank only ever at 1800 MHz is normal; one at exactly 800 and
// 1800 MHz went idle (FreeFrequencyRanks, ranks ascending); any other set is abnormal
// (AbnormalFrequencyRanks, with the frequencies as a Python list, in rank order). Like
// msprof-analyze it writes only the db export (its text export writes nothing).

#include <vector>

#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::freq_analysis {

class FreqAnalysis : public Recipe {
 public:
  std::string name() const override { return "freq_analysis"; }
  std::string dir_name() const override { return "FreqAnalysis"; }
  bool needs_profiler_db() const override { return true; }
  std::string missing_data_hint() const override {
    return "profile with the AI Core frequency recorded (AICORE_FREQ in the DB export)";
  }
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;
};

// The verdict on one rank's distinct frequencies (sorted ascending): normal, idle or abnormal.
enum class FreqVerdict { kNormal, kIdle, kAbnormal };
FreqVerdict judge_frequencies(const std::vector<double>& sorted_distinct);

}  // namespace cs::recipes::freq_analysis
