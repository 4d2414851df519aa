// The slow-rank analysis is linear in the step-trace rows: 100,000 copies of one row in one rank's
// step_trace_time.csv (issue 17: leave-one-out medians made this O(N^2 log N), over a minute) are
// collapsed to one row, reported once, and change nothing else. This executable runs with a ctest
// TIMEOUT of 30 s (tests/CMakeLists.txt); the quadratic version would not finish in time.

#include <gtest/gtest.h>

#include "analysis/slow_rank.h"
#include "analysis/synthetic_cluster.h"

namespace cs::analysis {
namespace {

TEST(SlowRankScaling, DuplicateStepRowsAreCollapsedAndReportedOnce) {
  testing::SyntheticOptions o;
  o.slow[6] = 1.5;
  auto ranks = testing::synthetic_cluster(o);
  const auto plain = analysis::analyze_slow_ranks(ranks, {}, {});
  ASSERT_EQ(plain.findings.size(), 1u);
  EXPECT_TRUE(plain.notes.empty());

  auto& rows = ranks[3].step_trace.edit().rows;
  ASSERT_FALSE(rows.empty());
  const readers::StepTraceRow copy = rows.front();
  for (int i = 0; i < 100000; ++i) rows.push_back(copy);
  const auto dup = analysis::analyze_slow_ranks(ranks, {}, {});
  ASSERT_EQ(dup.findings.size(), 1u);
  EXPECT_EQ(dup.findings[0].rank, 6);
  EXPECT_EQ(dup.findings[0].evidence, plain.findings[0].evidence);
  ASSERT_EQ(dup.notes.items().size(), 1u);  // one note for all the repeats
  EXPECT_NE(dup.notes.items()[0].what.find("100000 repeated row(s) ignored"), std::string::npos)
      << dup.notes.items()[0].what;
  EXPECT_NE(dup.notes.items()[0].what.find("rank 3"), std::string::npos);
}

}  // namespace
}  // namespace cs::analysis
