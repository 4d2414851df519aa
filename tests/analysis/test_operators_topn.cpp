// The operators_topn table from per-rank OperatorTables.

#include "analysis/operators_topn.h"

#include <gtest/gtest.h>

namespace cs::analysis {
namespace {

std::vector<load::RankData> ranks_with_slow_softmax() {
  std::vector<load::RankData> ranks(4);
  for (int r = 0; r < 4; ++r) {
    ranks[static_cast<size_t>(r)].entry.rank = r;
    auto& ops = ranks[static_cast<size_t>(r)].operators.edit();
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
  auto t = analysis::operators_topn_table(ranks_with_slow_softmax(), 15, stats::OrderBy::kTotal);
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
  auto t = analysis::operators_topn_table(ranks_with_slow_softmax(), 2, stats::OrderBy::kCv);
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.find("key")->strings[0], "SoftmaxV2");
  EXPECT_GT(t.find("cross_rank_cv")->doubles[0], 0.5);
  EXPECT_LT(t.find("cross_rank_cv")->doubles[1], 0.05);
}

TEST(OperatorsTopN, MergeOrderDoesNotChangeCounts) {
  auto ranks = ranks_with_slow_softmax();
  auto merged = analysis::merge_operators(ranks);
  std::vector<load::RankData> reversed(ranks.rbegin(), ranks.rend());
  auto merged2 = analysis::merge_operators(reversed);
  for (const auto& [k, s] : merged.keys()) {
    EXPECT_EQ(merged2.keys().at(k).durations.count, s.durations.count);
    EXPECT_DOUBLE_EQ(merged2.keys().at(k).durations.sum, s.durations.sum);
  }
  EXPECT_EQ(
      analysis::operators_topn_table(std::vector<load::RankData>{}, 15, stats::OrderBy::kTotal)
          .rows(),
      0u);
}

// 8 ranks, tp 2, dp 2, pp 2 in profiler metadata; stage 1 (ranks 4..7) runs 3x the MatMul, and
// rank 1 runs SoftmaxV2 1.4x slower.
std::vector<load::RankData> two_stage_ranks(bool metadata) {
  std::vector<load::RankData> ranks(8);
  for (int r = 0; r < 8; ++r) {
    auto& d = ranks[static_cast<size_t>(r)];
    d.entry.rank = r;
    if (metadata) {
      d.has_metadata = d.metadata.has_distributed_args = true;
      d.metadata.distributed_args.set("tensor_model_parallel_size", 2);
      d.metadata.distributed_args.set("data_parallel_size", 2);
      d.metadata.distributed_args.set("pipeline_model_parallel_size", 2);
    }
    for (int i = 0; i < 50; ++i) {
      d.operators.edit().add("MatMulV3", (r >= 4 ? 600 : 200) + i % 7, r);
      d.operators.edit().add("SoftmaxV2", r == 1 ? 28 : 20, r);
    }
  }
  return ranks;
}

TEST(OperatorsTopN, RankStagesFromMetadata) {
  const auto stages = analysis::rank_stages(two_stage_ranks(true));
  ASSERT_EQ(stages.size(), 8u);
  EXPECT_EQ(stages.at(0), 0);
  EXPECT_EQ(stages.at(3), 0);
  EXPECT_EQ(stages.at(4), 1);
  EXPECT_EQ(stages.at(7), 1);
  EXPECT_TRUE(analysis::rank_stages(two_stage_ranks(false)).empty());
  // Ranks disagreeing on the sizes: no stage information.
  auto bad = two_stage_ranks(true);
  bad[5].metadata.distributed_args.set("data_parallel_size", 4);
  EXPECT_TRUE(analysis::rank_stages(bad).empty());
}

TEST(OperatorsTopN, PeerCvWithPipelineStages) {
  // With stages from the metadata the slow SoftmaxV2 tops the CV ranking, on rank 1.
  auto t = analysis::operators_topn_table(two_stage_ranks(true), 0, stats::OrderBy::kCv);
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.find("key")->strings[0], "SoftmaxV2");
  EXPECT_EQ(t.find("max_rank")->ints[0], 1);
  EXPECT_LT(t.find("cross_rank_cv")->doubles[1], 0.02);
  // Without stage information the structural MatMul spread wins.
  auto plain = analysis::operators_topn_table(two_stage_ranks(false), 0, stats::OrderBy::kCv);
  EXPECT_EQ(plain.find("key")->strings[0], "MatMulV3");
  EXPECT_GT(plain.find("cross_rank_cv")->doubles[0], 0.4);
}

}  // namespace
}  // namespace cs::analysis
