// The operators_topn table from per-rank OperatorTables.

#include "cluster/operators_topn.h"

#include <gtest/gtest.h>

namespace cs::cluster {
namespace {

std::vector<RankData> ranks_with_slow_softmax() {
  std::vector<RankData> ranks(4);
  for (int r = 0; r < 4; ++r) {
    ranks[static_cast<size_t>(r)].entry.rank = r;
    auto& ops = ranks[static_cast<size_t>(r)].operators;
    for (int i = 0; i < 100; ++i) {
      ops.add("MatMulV3", 200 + i % 10, r);
      ops.add("SoftmaxV2", r == 3 ? 60 : 20, r);
      ops.add("Add", 5, r);
    }
    ops.add_aggregate("Cast", 10, 30, 2, 4, r);  // from op_statistic.csv
  }
  return ranks;
}

TEST(OperatorsTopN, ColumnsMatchTheInterface) {
  auto t = operators_topn_table(ranks_with_slow_softmax(), 15, stats::OrderBy::kTotal);
  t.validate();
  EXPECT_EQ(t.name, "operators_topn");
  std::vector<std::string> names;
  for (const auto& c : t.columns) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"key", "count", "total_us", "mean_us", "std_us",
                                             "min_us", "max_us", "p50_us", "p90_us", "p99_us",
                                             "ranks", "min_rank", "max_rank", "cross_rank_cv"}));
  EXPECT_EQ(t.find("total_us")->unit, "us");
  ASSERT_EQ(t.rows(), 4u);
  EXPECT_EQ(t.find("key")->strings[0], "MatMulV3");
  EXPECT_EQ(t.find("count")->ints[0], 400);
  EXPECT_EQ(t.find("ranks")->ints[0], 4);
  EXPECT_NEAR(t.find("p50_us")->doubles[0], 204, 204 * 0.011);
  EXPECT_EQ(t.find("key")->strings[1], "SoftmaxV2");
  EXPECT_EQ(t.find("max_rank")->ints[1], 3);
  EXPECT_EQ(t.find("min_rank")->ints[1], 0);
}

TEST(OperatorsTopN, SlowKernelTopsCrossRankCv) {
  auto t = operators_topn_table(ranks_with_slow_softmax(), 2, stats::OrderBy::kCv);
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.find("key")->strings[0], "SoftmaxV2");
  EXPECT_GT(t.find("cross_rank_cv")->doubles[0], 0.5);
  EXPECT_LT(t.find("cross_rank_cv")->doubles[1], 0.05);
}

TEST(OperatorsTopN, MergeOrderDoesNotChangeCounts) {
  auto ranks = ranks_with_slow_softmax();
  auto merged = merge_operators(ranks);
  std::vector<RankData> reversed(ranks.rbegin(), ranks.rend());
  auto merged2 = merge_operators(reversed);
  for (const auto& [k, s] : merged.keys()) {
    EXPECT_EQ(merged2.keys().at(k).durations.count, s.durations.count);
    EXPECT_DOUBLE_EQ(merged2.keys().at(k).durations.sum, s.durations.sum);
  }
  EXPECT_EQ(operators_topn_table(std::vector<RankData>{}, 15, stats::OrderBy::kTotal).rows(), 0u);
}

}  // namespace
}  // namespace cs::cluster
