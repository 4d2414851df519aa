// Slow-rank detection on small simulated clusters (tests/analysis/synthetic_cluster.h).

#include "analysis/slow_rank.h"

#include <gtest/gtest.h>

#include "analysis/synthetic_cluster.h"

namespace cs::analysis {
namespace {

std::vector<int> flagged(const std::vector<analysis::SlowRankFinding>& f) {
  std::vector<int> r;
  for (const auto& x : f) r.push_back(x.rank);
  return r;
}

TEST(SlowRank, CleanClusterHasNone) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    testing::SyntheticOptions o;
    o.seed = seed;
    auto f = analysis::find_slow_ranks(testing::synthetic_cluster(o));
    EXPECT_TRUE(f.empty()) << "seed " << seed << ": rank " << f.front().rank << " "
                           << f.front().evidence;
  }
}

TEST(SlowRank, OneComputeSlowRank) {
  for (double factor : {1.1, 1.3, 2.0}) {
    testing::SyntheticOptions o;
    o.slow[6] = factor;
    auto f = analysis::find_slow_ranks(testing::synthetic_cluster(o));
    ASSERT_EQ(flagged(f), std::vector<int>{6}) << "factor " << factor;
    EXPECT_EQ(f[0].cause, "compute");
    // Its peers wait for it: last in most decided collectives, far above chance.
    EXPECT_GE(f[0].last, f[0].trials / 2);
    EXPECT_GT(f[0].last, 2 * f[0].expected_last);
    EXPECT_TRUE(f[0].collective_evidence);
    EXPECT_GT(f[0].impact_ms_per_step, 0);
    EXPECT_NEAR(f[0].computing_rel, factor - 1, 0.03);
    EXPECT_NE(f[0].evidence.find("costing its groups"), std::string::npos) << f[0].evidence;
    EXPECT_NE(f[0].evidence.find("Computing +"), std::string::npos) << f[0].evidence;
  }
}

TEST(SlowRank, TwoSlowRanksInDifferentGroups) {
  testing::SyntheticOptions o;
  o.ranks = 32;
  o.slow[3] = 1.5;
  o.slow[21] = 1.2;
  auto f = analysis::find_slow_ranks(testing::synthetic_cluster(o));
  ASSERT_EQ(flagged(f).size(), 2u);
  EXPECT_EQ(f[0].rank, 3);  // the slower one scores higher
  EXPECT_EQ(f[1].rank, 21);
}

TEST(SlowRank, HostBoundRank) {
  testing::SyntheticOptions o;
  o.host[9] = 80;  // 80 us of extra idle per segment (20% of compute)
  auto f = analysis::find_slow_ranks(testing::synthetic_cluster(o));
  ASSERT_EQ(flagged(f), std::vector<int>{9});
  EXPECT_EQ(f[0].cause, "host");
  EXPECT_NE(f[0].evidence.find("Free"), std::string::npos) << f[0].evidence;
}

TEST(SlowRank, WithoutStepTraceCommunicationAloneFindsIt) {
  testing::SyntheticOptions o;
  o.slow[5] = 1.5;
  auto ranks = testing::synthetic_cluster(o);
  for (auto& r : ranks) r.has_step_trace = false;
  auto f = analysis::find_slow_ranks(ranks);
  ASSERT_EQ(flagged(f), std::vector<int>{5});
  EXPECT_EQ(f[0].cause, "unknown");
}

TEST(SlowRank, LargeGroup) {
  testing::SyntheticOptions o;
  o.ranks = 128;
  o.tp = 128;  // one group of 128: beyond the Dixon table
  o.segments = 6;
  o.slow[77] = 1.3;
  auto f = analysis::find_slow_ranks(testing::synthetic_cluster(o));
  ASSERT_FALSE(f.empty());
  EXPECT_EQ(f[0].rank, 77);
  EXPECT_GT(f[0].last, 0);
}

TEST(SlowRank, Table) {
  testing::SyntheticOptions o;
  o.slow[2] = 2.0;
  auto t = analysis::slow_ranks_table(analysis::find_slow_ranks(testing::synthetic_cluster(o)));
  t.validate();
  EXPECT_EQ(t.name, "slow_ranks");
  ASSERT_EQ(t.rows(), 1u);
  EXPECT_EQ(t.find("rank")->ints[0], 2);
  EXPECT_EQ(t.find("cause")->strings[0], "compute");
  EXPECT_GT(t.find("score")->doubles[0], 0);
  EXPECT_TRUE(analysis::slow_ranks_table({}).rows() == 0);
}

TEST(SlowRank, EmptyInput) {
  EXPECT_TRUE(analysis::find_slow_ranks({}).empty());
}

}  // namespace
}  // namespace cs::analysis
