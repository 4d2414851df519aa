// Runs of different shape are refused, runs that profiled different steps are lined up in order:
// no rank or step is compared against zeros.
#include "compare/run_shape.h"

#include <gtest/gtest.h>

using namespace cs;
using cs::load::RankData;

namespace {

// A rank with step-trace rows for `steps` (Computing = 100 * step number) and one communication
// step per step ("stepN").
RankData rank_with_steps(int rank, const std::vector<int>& steps) {
  RankData d;
  d.entry.rank = rank;
  d.step_trace.edit().columns = {"Computing"};
  for (int s : steps) {
    d.step_trace.edit().rows.push_back({std::to_string(s), {100.0 * s}});
    readers::CommStep cs;
    cs.step = "step" + std::to_string(s);
    d.communication.edit().steps.push_back(cs);
  }
  return d;
}

}  // namespace

TEST(RunShape, DescribeRanks) {
  EXPECT_EQ(compare::describe_ranks({0, 1, 2, 3}), "4 ranks (0-3)");
  EXPECT_EQ(compare::describe_ranks({0, 4, 9}), "3 ranks (0,4,9)");
  EXPECT_EQ(compare::describe_ranks({7}), "1 rank (7)");
}

TEST(RunShape, DifferentRankSetsAreAShapeMismatch) {
  std::vector<RankData> a, b;
  for (int r = 0; r < 16; ++r) a.push_back(rank_with_steps(r, {1}));
  for (int r = 0; r < 8; ++r) b.push_back(rank_with_steps(r, {1}));
  EXPECT_EQ(compare::shape_mismatch(a, b),
            "the runs differ in shape: the base has 16 ranks (0-15), the comparison 8 ranks (0-7)");
  EXPECT_EQ(compare::shape_mismatch(a, a), "");
}

TEST(RunShape, SameStepsAreLeftAlone) {
  std::vector<RankData> a{rank_with_steps(0, {1, 2})}, b{rank_with_steps(0, {1, 2})};
  EXPECT_TRUE(compare::align_steps(a, b).empty());
  EXPECT_EQ(b[0].step_trace.edit().rows[1].step, "2");
}

TEST(RunShape, DifferentStepsAreComparedInOrder) {
  std::vector<RankData> a{rank_with_steps(0, {1, 2, 3, 4})},
      b{rank_with_steps(0, {5, 6, 7, 8, 9, 10})};
  const auto w = compare::align_steps(a, b);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0],
            "the runs profiled different steps: the base 1-4, the comparison 5-10; step 5 of the "
            "comparison is compared with step 1 of the base, and so on in order; only the first 4 "
            "steps of each run are compared");
  // The comparison's steps 5..8 now carry the base's names 1..4 (values kept), 9 and 10 dropped.
  ASSERT_EQ(b[0].step_trace.edit().rows.size(), 4u);
  EXPECT_EQ(b[0].step_trace.edit().rows[0].step, "1");
  EXPECT_EQ(b[0].step_trace.edit().rows[0].values[0], 500.0);
  EXPECT_EQ(b[0].step_trace.edit().rows[3].step, "4");
  ASSERT_EQ(b[0].communication.edit().steps.size(), 4u);
  EXPECT_EQ(b[0].communication.edit().steps[2].step, "step3");
  EXPECT_EQ(compare::run_steps(a), compare::run_steps(b));
}

TEST(RunShape, LongerBaseLosesItsExtraSteps) {
  std::vector<RankData> a{rank_with_steps(0, {1, 2, 3})}, b{rank_with_steps(0, {2, 3})};
  ASSERT_EQ(compare::align_steps(a, b).size(), 1u);
  EXPECT_EQ(compare::run_steps(a), (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(compare::run_steps(b), (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(b[0].step_trace.edit().rows[0].values[0], 200.0);
}
