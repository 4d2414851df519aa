// The memory findings and tables on hand-built summaries: each rule fires on what it is for and
// stays silent on a clean job; the curve keeps every peak while downsampling; steps are assigned
// from their ranges.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "memory/cluster_memory.h"
#include "memory/memory_builder.h"

namespace {

using namespace cs::memory;

constexpr int64_t kGB = int64_t{1} << 30;
constexpr int64_t kMB = int64_t{1} << 20;

// A rank whose allocations hold `base` bytes with a peak of base + `extra` in each of 4 steps,
// its floor growing by `growth` per step.
RankMemory rank(int64_t base, int64_t extra = 0, int64_t growth = 0) {
  RankMemoryBuilder b({{1, 0, 999}, {2, 1000, 1999}, {3, 2000, 2999}, {4, 3000, 3999}});
  for (int s = 0; s < 4; ++s) {
    const int64_t floor = base + growth * s;
    const int64_t t = 1000 * s;
    b.record("PTA+GE", t + 10, floor, floor + kGB);
    b.record("PTA+GE", t + 500, floor + 2 * kGB + extra, floor + 3 * kGB);
    b.record("PTA+GE", t + 900, floor, floor + 3 * kGB);
  }
  b.end_records();
  b.block("aten::empty_strided", base + extra, 0, std::nullopt);
  return b.finish();
}

std::vector<RankMemoryRef> refs(const std::vector<RankMemory>& m, int stages = 1) {
  std::vector<RankMemoryRef> out;
  const int per = static_cast<int>(m.size()) / stages;
  for (size_t i = 0; i < m.size(); ++i)
    out.push_back({static_cast<int>(i), static_cast<int>(i) / per, &m[i]});
  return out;
}

TEST(MemoryFindings, CleanJobIsSilent) {
  std::vector<RankMemory> m;
  for (int i = 0; i < 8; ++i) m.push_back(rank(10 * kGB + i * 8 * kMB));
  const auto f = find_memory_issues(refs(m));
  EXPECT_TRUE(f.empty());
  EXPECT_EQ(memory_summary(f), "No memory finding.\n");
}

TEST(MemoryFindings, ImbalanceAgainstStagePeersWithEvidence) {
  std::vector<RankMemory> m;
  for (int i = 0; i < 8; ++i) m.push_back(rank(10 * kGB + i * 8 * kMB, i == 6 ? 3 * kGB : 0));
  const auto f = find_memory_issues(refs(m));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rank, 6);
  EXPECT_EQ(f[0].kind, "imbalance");
  EXPECT_NEAR(f[0].score, 3.0, 0.05);  // GB above the peers' median
  EXPECT_NE(f[0].evidence.find("rank 6 peaks at 15.0 GB, 3.0 GB (+25%) above its 7 stage peers"),
            std::string::npos)
      << f[0].evidence;
  EXPECT_NE(f[0].evidence.find("in blocks from aten::empty_strided"), std::string::npos);
}

TEST(MemoryFindings, StagesAreNotPeers) {
  // Stage 0 holds 4 GB more by design: no rank finding, one stage line.
  std::vector<RankMemory> m;
  for (int i = 0; i < 8; ++i) m.push_back(rank((i < 4 ? 14 : 10) * kGB + i * 4 * kMB));
  const auto f = find_memory_issues(refs(m, 2));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, "stage_imbalance");
  EXPECT_NE(f[0].evidence.find("stage 0 holds 4.0 GB more than stage 1"), std::string::npos)
      << f[0].evidence;
}

TEST(MemoryFindings, LeakAndItsGrowth) {
  std::vector<RankMemory> m;
  for (int i = 0; i < 8; ++i) m.push_back(rank(10 * kGB, 0, i == 2 ? 310 * kMB : 0));
  EXPECT_NEAR(growth_per_step(m[2]) / kMB, 310.0, 1e-9);
  const auto f = find_memory_issues(refs(m));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, "leak");
  EXPECT_NE(f[0].evidence.find("allocated memory grows 310 MB per step on rank 2 (leak?)"),
            std::string::npos)
      << f[0].evidence;
  const cs::io::Table t = memory_ranks_table(refs(m), f);
  EXPECT_EQ(t.find("flag")->strings[2], "leak");
  EXPECT_NEAR(t.find("growth_mb_per_step")->doubles[2], 310.0, 1e-9);
}

TEST(MemoryFindings, NearCapacity) {
  std::vector<RankMemory> m;
  for (int i = 0; i < 4; ++i) m.push_back(rank(10 * kGB));
  for (auto& x : m) x.capacity = 64 * kGB;
  m[1].peak_app_reserved = 62 * kGB;  // 3% free
  const auto f = find_memory_issues(refs(m));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, "near_capacity");
  EXPECT_NE(f[0].evidence.find("rank 1 is within 3% of its 64.0 GB device memory"),
            std::string::npos)
      << f[0].evidence;
}

TEST(MemoryBuilder, CurveKeepsEveryPeakWhileDownsampling) {
  RankMemoryBuilder b({});
  int64_t top = 0, top_t = 0;
  for (int64_t i = 0; i < 200000; ++i) {
    const int64_t v = (i * 7919) % 100003 * kMB / 100;  // a saw, its max somewhere inside
    if (v > top) top = v, top_t = i * 50'000;
    b.record("PTA+GE", i * 50'000, v, v + kGB);
  }
  ASSERT_TRUE(b.end_records());
  const RankMemory m = b.finish();
  EXPECT_LE(m.curve.size(), RankMemory::kCurveBuckets);
  EXPECT_GE(m.curve.size(), RankMemory::kCurveBuckets / 2);
  int64_t seen = 0;
  for (const auto& c : m.curve) seen = std::max(seen, c.max_allocated);
  EXPECT_EQ(seen, top);
  EXPECT_EQ(m.peak_allocated, top);
  EXPECT_EQ(m.peak_time_ns, top_t);
  EXPECT_EQ(m.records, 200000);
}

TEST(MemoryBuilder, SeriesChoiceAndStepsOutsideRanges) {
  RankMemoryBuilder b({{7, 100, 200}});
  b.record("GE", 50, 5 * kMB, 6 * kMB);
  b.record("MindSpore+GE", 150, 9 * kMB, 10 * kMB);
  b.record("APP", 150, std::nullopt, 20 * kMB);
  ASSERT_TRUE(b.end_records());
  b.block("Conv", 4 * kMB, 120, 180);
  b.block("Conv", 2 * kMB, 160, std::nullopt);
  const RankMemory m = b.finish();
  EXPECT_EQ(m.series, "MindSpore+GE");  // before GE
  EXPECT_EQ(m.peak_step, 7);
  EXPECT_EQ(m.peak_app_reserved, 20 * kMB);
  EXPECT_EQ(m.live_bytes_at_peak, 4 * kMB);  // the second block comes after the peak
  EXPECT_EQ(m.never_released, 1);
  ASSERT_EQ(m.operators.size(), 1u);
  EXPECT_EQ(m.operators[0].calls, 2);
  EXPECT_EQ(m.operators[0].max_block, 4 * kMB);
}

TEST(MemoryTables, OperatorsAcrossRanks) {
  std::vector<RankMemory> m;
  for (int i = 0; i < 5; ++i) {
    RankMemoryBuilder b({});
    b.record("PTA+GE", 0, kGB, kGB);
    b.end_records();
    for (int k = 0; k <= i; ++k) b.block("aten::mm", 10 * kMB, 0, 1);
    m.push_back(b.finish());
  }
  const cs::io::Table t = memory_operators_table(refs(m));
  ASSERT_EQ(t.rows(), 1u);
  EXPECT_EQ(t.find("calls")->ints[0], 15);
  EXPECT_EQ(t.find("total_mb")->doubles[0], 150.0);
  EXPECT_EQ(t.find("p50_rank_mb")->doubles[0], 30.0);  // per rank 10, 20, 30, 40, 50
  EXPECT_EQ(t.find("p90_rank_mb")->doubles[0], 46.0);  // numpy: 40 + 0.6 * 10
  EXPECT_EQ(t.find("max_rank_mb")->doubles[0], 50.0);
  EXPECT_EQ(t.find("max_rank")->ints[0], 4);
}

TEST(MemoryTables, PeaksByGroup) {
  std::vector<RankMemory> m;
  for (int i = 0; i < 4; ++i) m.push_back(rank((10 + i) * kGB));
  // Peaks: 12, 13, 14, 15 GB (base + 2 GB in each step).
  const cs::io::Table t =
      memory_groups_table(refs(m), {{"tp", "a", {0, 1}}, {"dp", "b", {1, 3, 9}}, {"x", "c", {7}}});
  ASSERT_EQ(t.rows(), 2u);  // "x" has no rank with memory data
  EXPECT_EQ(t.find("median_peak_mb")->doubles[0], 12.5 * 1024);
  EXPECT_EQ(t.find("max_rank")->ints[1], 3);
  EXPECT_EQ(t.find("ranks")->ints[1], 2);
  EXPECT_NEAR(t.find("max_over_median")->doubles[1], 15.0 / 14.0, 1e-12);
}

}  // namespace
