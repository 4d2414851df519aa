// TopN selection and ordering from a merged OperatorTable.

#include "stats/topn.h"

#include <gtest/gtest.h>

#include <cmath>

namespace cs::stats {
namespace {

OperatorTable sample_table() {
  OperatorTable t;
  // MatMul: large total, even across ranks.
  for (int r = 0; r < 4; ++r)
    for (int i = 0; i < 10; ++i) t.add("MatMul", 100 + i, r);
  // Softmax: rank 2 runs it 3x slower -> highest cross-rank CV.
  for (int r = 0; r < 4; ++r)
    for (int i = 0; i < 10; ++i) t.add("Softmax", r == 2 ? 30 : 10, r);
  // Cast: one very long kernel.
  t.add("Cast", 900, 1);
  t.add("Cast", 1, 3);
  return t;
}

TEST(TopN, ParseOrderBy) {
  EXPECT_EQ(parse_order_by("total"), OrderBy::kTotal);
  EXPECT_EQ(parse_order_by("cv"), OrderBy::kCv);
  EXPECT_EQ(parse_order_by("max"), OrderBy::kMax);
  EXPECT_EQ(parse_order_by("mean"), OrderBy::kMean);
  EXPECT_FALSE(parse_order_by("Total").has_value());
}

TEST(TopN, CrossRankCv) {
  EXPECT_EQ(cross_rank_cv({}), 0.0);
  EXPECT_EQ(cross_rank_cv({{0, 5}}), 0.0);
  EXPECT_NEAR(cross_rank_cv({{0, 10}, {1, 10}, {2, 40}}), std::sqrt(200.0) / 20.0, 1e-12);
}

TEST(TopN, OrderByEachMetric) {
  auto t = sample_table();
  auto by_total = select_topn(t, 0, OrderBy::kTotal);
  ASSERT_EQ(by_total.size(), 3u);
  EXPECT_EQ(by_total[0].key, "MatMul");
  EXPECT_EQ(by_total[1].key, "Cast");  // 901 vs Softmax 600
  EXPECT_EQ(select_topn(t, 1, OrderBy::kMax)[0].key, "Cast");
  EXPECT_EQ(select_topn(t, 1, OrderBy::kMean)[0].key, "Cast");
  auto by_cv = select_topn(t, 2, OrderBy::kCv);
  ASSERT_EQ(by_cv.size(), 2u);
  EXPECT_EQ(by_cv[0].key, "Cast");  // 900 vs 1 on two ranks
  EXPECT_EQ(by_cv[1].key, "Softmax");
}

TEST(TopN, RowValues) {
  auto t = sample_table();
  auto rows = select_topn(t, 0, OrderBy::kTotal);
  const auto& sm = rows[2];
  ASSERT_EQ(sm.key, "Softmax");
  EXPECT_EQ(sm.count, 40);
  EXPECT_DOUBLE_EQ(sm.total_us, 600);
  EXPECT_DOUBLE_EQ(sm.mean_us, 15);
  EXPECT_NEAR(sm.std_us, std::sqrt(30 * 25.0 + 10 * 225.0) / std::sqrt(39.0), 1e-9);
  EXPECT_EQ(sm.min_us, 10);
  EXPECT_EQ(sm.max_us, 30);
  EXPECT_NEAR(sm.p50_us, 10, 0.1);
  EXPECT_NEAR(sm.p90_us, 30, 0.3);
  EXPECT_EQ(sm.ranks, 4);
  EXPECT_EQ(sm.min_rank, 0);  // ranks 0, 1, 3 tie at 100: lowest wins
  EXPECT_EQ(sm.max_rank, 2);
  EXPECT_NEAR(sm.cross_rank_cv, cross_rank_cv({{0, 100}, {1, 100}, {2, 300}, {3, 100}}), 1e-12);
  const auto& mm = rows[0];
  EXPECT_EQ(mm.min_us, 100);
  EXPECT_EQ(mm.max_us, 109);
  EXPECT_EQ(mm.cross_rank_cv, 0.0);
}

TEST(TopN, TruncatesAndIsDeterministicOnTies) {
  OperatorTable t;
  for (const char* k : {"d", "b", "a", "c"}) t.add(k, 5, 0);
  auto rows = select_topn(t, 2, OrderBy::kTotal);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].key, "a");
  EXPECT_EQ(rows[1].key, "b");
  EXPECT_TRUE(select_topn(OperatorTable{}, 15, OrderBy::kTotal).empty());
}

TEST(TopN, StageRelativeCv) {
  // Two stages with different work: the plain CV sees the stage spread, the peer CV does not.
  const RankTotals even = {{0, 10}, {1, 10}, {2, 40}, {3, 40}};
  const RankStages stages = {{0, 0}, {1, 0}, {2, 1}, {3, 1}};
  EXPECT_GT(cross_rank_cv(even), 0.5);
  EXPECT_NEAR(cross_rank_cv(even, stages), 0.0, 1e-12);
  // One stage, or no stage information: the plain CV (the CV ignores scale).
  const RankTotals t = {{0, 10}, {1, 12}, {2, 40}, {3, 44}};
  EXPECT_NEAR(cross_rank_cv(t, {}), cross_rank_cv(t), 1e-12);
  EXPECT_NEAR(cross_rank_cv(t, {{0, 5}, {1, 5}, {2, 5}, {3, 5}}), cross_rank_cv(t), 1e-12);
  // Stage medians: {11, 42} -> ratios {0.909, 1.091, 0.952, 1.048}.
  const auto rel = stage_relative_totals(t, stages);
  EXPECT_NEAR(rel.at(0), 10.0 / 11, 1e-12);
  EXPECT_NEAR(rel.at(3), 44.0 / 42, 1e-12);
  // Ranks missing from the map share one stage of their own.
  const auto partial = stage_relative_totals({{0, 10}, {1, 30}, {7, 5}}, {{0, 0}, {1, 0}});
  EXPECT_NEAR(partial.at(0), 0.5, 1e-12);
  EXPECT_NEAR(partial.at(7), 1.0, 1e-12);
  // A stage whose median is 0: no normalisation at all.
  EXPECT_EQ(stage_relative_totals({{0, 0}, {1, 0}, {2, 5}}, {{0, 0}, {1, 0}, {2, 1}}).at(2), 5.0);
}

TEST(TopN, StagesPickTheOutlierNotTheBusiestStage) {
  // 8 ranks, 2 stages; stage 1 runs twice the MatMul (LM head). Rank 2 runs Softmax 1.5x slower.
  OperatorTable t;
  RankStages stages;
  for (int r = 0; r < 8; ++r) {
    stages[r] = r / 4;
    for (int i = 0; i < 10; ++i) t.add("MatMul", (r >= 4 ? 200 : 100) + (r % 3), r);
    for (int i = 0; i < 10; ++i) t.add("Softmax", (r == 2 ? 15 : 10) * (r >= 4 ? 1.2 : 1.0), r);
  }
  // Without stages the structural MatMul spread wins; with stages the slow Softmax does.
  EXPECT_EQ(select_topn(t, 1, OrderBy::kCv)[0].key, "MatMul");
  const auto rows = select_topn(t, 0, OrderBy::kCv, stages);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].key, "Softmax");
  EXPECT_EQ(rows[0].max_rank, 2);  // not a rank of the busier stage 1
  EXPECT_LT(rows[1].cross_rank_cv, 0.02);
}

}  // namespace
}  // namespace cs::stats

namespace cs::stats {
namespace {

TEST(TopN, CvRankingPutsCommunicationLast) {
  EXPECT_TRUE(is_communication_key("hcom_allReduce_"));
  EXPECT_TRUE(is_communication_key("HcclAllReduce"));
  EXPECT_TRUE(is_communication_key("ncclDevKernel_AllReduce"));
  EXPECT_FALSE(is_communication_key("MatMulV3"));
  OperatorTable t;
  for (int r = 0; r < 4; ++r) {
    t.add("hcom_send_", r == 1 ? 500 : 5, r);  // waits: huge CV
    t.add("MatMulV3", r == 2 ? 20 : 10, r);
    t.add("Add", 3, r);
  }
  auto rows = select_topn(t, 0, OrderBy::kCv);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].key, "MatMulV3");
  EXPECT_EQ(rows[1].key, "Add");
  EXPECT_EQ(rows[2].key, "hcom_send_");
  EXPECT_EQ(select_topn(t, 1, OrderBy::kTotal)[0].key, "hcom_send_");
}

}  // namespace
}  // namespace cs::stats
