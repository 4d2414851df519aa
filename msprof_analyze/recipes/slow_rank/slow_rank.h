#pragma once
// msprof-analyze's slow_rank recipe: every rank's collective ops (COMMUNICATION_OP joined to its
// CANN_API launch, ranks from RANK_DEVICE_MAP; send/receive left out), grouped by communication
// group and op name (a group whose op names do not all occur equally often is left out); in each
// collective instance the rank whose op was shortest is the one the others waited for when its
// duration is an outlier (Dixon's test at 99.5% up to 100 ranks, mean - 3 sigma above).
// Outputs: votes per rank (SlowRank / rank_stats.csv, first-vote order) and each voted instance
// with its duration statistics (SlowOpStats / slow_op_stats.csv, by start time).
// The reduce walks the ranks' rows one rank at a time in rank order, held or parked on disk, and
// puts each collective row (its instance, duration and row place) aside with its group's, on disk
// past a budget (msprof_analyze/recipes/rows_by_group.h); the groups are then judged one at a
// time, and a second walk reads the rank and start of the slow rows (docs/root_memory.md, "Done:
// slow_rank reduced rank by rank").

#include <cstddef>
#include <string>
#include <vector>

#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::slow_rank {

// The collective rows the reduce holds in memory at most (24 bytes each) before they wait on disk.
inline constexpr size_t kRowsInMemory = size_t{1} << 16;

class SlowRank : public Recipe {
 public:
  explicit SlowRank(size_t rows_in_memory = kRowsInMemory) : rows_in_memory_(rows_in_memory) {}
  std::string name() const override { return "slow_rank"; }
  std::string dir_name() const override { return "SlowRankAnalysis"; }
  bool needs_profiler_db() const override { return true; }
  // Each rank's rows may be parked on disk at the root (the reduce walks them rank by rank).
  std::vector<std::string> parkable_frames() const override { return {"rows"}; }
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;

 private:
  size_t rows_in_memory_;
};

// The indexes (into `times`) of the ranks judged slow in one collective instance: Dixon's test
// for 3..100 values (the shortest, when its gap ratio exceeds the 99.5% table value and there are
// more than 3 distinct values), else every value below mean - 3 sigma plus the shortest when the
// longest is above mean + 3 sigma (numpy's mean and population std).
std::vector<size_t> judge_slow_ranks(const std::vector<double>& times);

}  // namespace cs::recipes::slow_rank
