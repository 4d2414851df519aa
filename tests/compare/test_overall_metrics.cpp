// Overall metrics: interval arithmetic, the real GPU sample (values cross-checked in Python), the
// NPU Overlap Analysis path, and the base-vs-comparison table.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "compare/overall_metrics.h"
#include "readers/kineto_trace.h"
#include "readers/trace_view.h"

namespace cs::compare {
namespace {

Profile trace_profile(const std::string& path, bool npu) {
  readers::Trace t;
  io::Diagnostics diag;
  EXPECT_TRUE(npu ? readers::read_trace_view(path, t, diag)
                  : readers::read_kineto_trace(path, t, diag));
  Profile p;
  EXPECT_TRUE(build_profile(std::move(t), npu, std::nullopt, p, diag));
  return p;
}

TEST(OverallMetrics, IntervalArithmetic) {
  EXPECT_EQ(union_ns({{0, 10}, {5, 20}, {30, 40}}), 30);
  EXPECT_EQ(union_ns({}), 0);
  EXPECT_EQ(difference_ns({{0, 100}}, {{10, 20}, {50, 200}}), 40);
  EXPECT_EQ(difference_ns({{0, 10}, {20, 30}}, {}), 20);
  EXPECT_EQ(difference_ns({{0, 10}}, {{0, 10}}), 0);
}

TEST(OverallMetrics, RealGpuTrace) {
  const Profile p =
      trace_profile(std::string(CS_TEST_DATA) + "/kineto/sampled_rank-0.json.gz", false);
  const OverallMetrics m = overall_metrics(p);
  EXPECT_FALSE(m.from_overlap_analysis);
  EXPECT_DOUBLE_EQ(m.computing_us, 211623.0);
  EXPECT_DOUBLE_EQ(m.uncovered_comm_us, 336033.0);
  EXPECT_DOUBLE_EQ(m.e2e_us, 1222847.0);
  EXPECT_DOUBLE_EQ(m.free_us, 675191.0);
  EXPECT_EQ(m.computing_count, 1194);
  EXPECT_EQ(m.comm_count, 10);
  double cat_sum = 0;
  int64_t cat_count = 0;
  for (size_t i = 0; i < kCategoryCount; ++i) {
    cat_sum += m.category_us[i];
    cat_count += m.category_count[i];
  }
  EXPECT_EQ(cat_count, 1194);
  // Categories sum kernel durations: all non-NCCL device time (kernels + memcpy + memset).
  EXPECT_GE(cat_sum, m.computing_us);
}

TEST(OverallMetrics, NpuUsesOverlapAnalysis) {
  const Profile p = trace_profile(std::string(CS_TEST_DATA) + "/ascend/trace_view.json", true);
  const OverallMetrics m = overall_metrics(p);
  EXPECT_TRUE(m.from_overlap_analysis);
  EXPECT_NEAR(m.computing_us, 1788.2505, 1e-6);
  EXPECT_NEAR(m.free_us, 9481.667, 1e-6);
  EXPECT_EQ(m.uncovered_comm_us, 0.0);
  EXPECT_NEAR(m.e2e_us, m.computing_us + m.free_us, 1e-3);  // no communication here
  EXPECT_EQ(m.category_count[static_cast<size_t>(KernelCategory::kOther)], 2);  // two AI_CPU tasks
}

TEST(OverallMetrics, TableDiffAndRatio) {
  OverallMetrics b, c;
  b.computing_us = 2000;
  b.e2e_us = 4000;
  c.computing_us = 3000;
  c.e2e_us = 6000;
  c.free_us = 500;
  const io::Table t = overall_metrics_table(b, c);
  t.validate();
  ASSERT_EQ(t.rows(), 3 + kCategoryCount + 1);
  EXPECT_EQ(t.find("metric")->strings.front(), "Computing Time");
  EXPECT_EQ(t.find("metric")->strings.back(), "E2E Time");
  EXPECT_DOUBLE_EQ(t.find("base_ms")->doubles[0], 2.0);
  EXPECT_DOUBLE_EQ(t.find("base_ratio")->doubles[0], 0.5);
  EXPECT_DOUBLE_EQ(t.find("diff_ms")->doubles[0], 1.0);
  EXPECT_DOUBLE_EQ(t.find("diff_ratio")->doubles[0], 1.5);
  const size_t free_row = t.rows() - 2;
  EXPECT_EQ(t.find("metric")->strings[free_row], "Free Time");
  EXPECT_TRUE(std::isinf(t.find("diff_ratio")->doubles[free_row]));  // base 0, comparison 500
  EXPECT_DOUBLE_EQ(t.find("diff_ratio")->doubles[1], 1.0);           // both 0
  const std::string text = format_overall_table(t);
  EXPECT_NE(text.find("Computing Time"), std::string::npos);
  EXPECT_NE(text.find("E2E Time"), std::string::npos);
}

}  // namespace
}  // namespace cs::compare
