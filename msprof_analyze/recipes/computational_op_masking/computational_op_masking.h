#pragma once
// msprof-analyze's computational_op_masking recipe: per rank, per parallel type (a group of
// parallel_group_info group names such as "dp" + "edp", `--parallel_types`) and per step
// (STEP_TIME), how long that type's communication ops (COMMUNICATION_OP, their group's name from
// META_DATA parallel_group_info) ran as one merged interval set, its share of the step, and how
// much of it no compute task (COMPUTE_TASK_INFO + TASK) covered. Output: one table without a rank
// column, the ranks' rows in rank order (ComputationalOperatorMaskingLinearity /
// computational_operator_masking_linearity.csv).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::computational_op_masking {

// One parallel type: the group names it gathers ("dp", "edp").
using ParallelType = std::vector<std::string>;

// msprof-analyze's default --parallel_types: dp+edp; edp; dp; ep; pp; mp; tp.
std::vector<ParallelType> default_parallel_types();

// Parses `--parallel_types` as msprof-analyze does: groups split by ';', names by ',', each
// stripped of spaces; a blank value gives the default. False with `error` on an empty group or
// name.
bool parse_parallel_types(const std::string& value, std::vector<ParallelType>& out,
                          std::string& error);

// A time interval [start, end) in ns.
struct Interval {
  int64_t start = 0;
  int64_t end = 0;
};

// msprof-analyze's merge of intervals: sorted by start (stable), an interval starting at or
// before the current one's end extends it.
std::vector<Interval> merge_intervals(std::vector<Interval> v);

// The step's two sums: the merged communication time, and the part of it no compute interval
// covers (both lists as they overlap the step, not clipped to it).
struct MaskedTime {
  int64_t communication = 0;
  int64_t uncovered = 0;
};
MaskedTime masked_time(const std::vector<Interval>& communication,
                       const std::vector<Interval>& compute);

class ComputationalOpMasking : public Recipe {
 public:
  std::string name() const override { return "computational_op_masking"; }
  std::string dir_name() const override { return "ComputationalOpMasking"; }
  bool needs_profiler_db() const override { return true; }
  std::string missing_data_hint() const override {
    return "profile with the parallel groups recorded (META_DATA parallel_group_info), the steps "
           "(STEP_TIME) and communication and compute tasks";
  }
  std::string set_args(const std::map<std::string, std::string>& args) override;
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;

 private:
  std::vector<ParallelType> types_ = default_parallel_types();
};

}  // namespace cs::recipes::computational_op_masking
