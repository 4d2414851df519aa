// gpu/gpu_compare: run vs run on generated GPU jobs — the same job against itself finds nothing,
// a job whose rank 5 computes 1.5x slower shows rank 5's computing as the regression (and the
// others' communication, which now waits for it), collective latencies unchanged.

#include <gtest/gtest.h>

#include <string>

#include "generator/generator.h"
#include "generator/output_dir.h"
#include "gpu/gpu_compare.h"
#include "gpu/gpu_discovery.h"
#include "gpu/gpu_run.h"
#include "support/test_files.h"

namespace {

std::vector<cs::gpu::GpuRankSummary> job(const cs::test::TempDir& dir, double slow5) {
  cs::generator::GeneratorOptions o;
  o.ranks = 16;
  o.tp = 4;
  o.pp = 2;
  o.steps = 3;
  o.seed = 3;
  o.framework = cs::generator::FrameworkKind::kKineto;
  if (slow5 > 1) o.slow_ranks.push_back({5, slow5});
  cs::io::Diagnostics diag;
  EXPECT_TRUE(cs::generator::generate_cluster(dir.str(), o, diag)) << cs::test::all_diags(diag);
  std::vector<cs::gpu::GpuRankSummary> all;
  for (const auto& f : cs::gpu::discover_gpu_traces(dir.str()).traces)
    all.push_back(cs::gpu::summarize_trace_file(f));
  std::vector<std::string> notes;
  return cs::gpu::resolve_ranks(std::move(all), std::nullopt, notes);
}

std::string verdict(const cs::io::Table& t, int64_t rank, const std::string& category) {
  for (size_t r = 0; r < t.rows(); ++r)
    if (t.columns[0].ints[r] == rank && t.columns[1].strings[r] == category)
      return t.columns[6].strings[r];
  return "absent";
}

TEST(GpuCompare, SameJobFindsNothingSlowRankFound) {
  cs::test::TempDir a("gpu_cmp_a"), b("gpu_cmp_b");
  const auto base = job(a, 1.0), slow = job(b, 1.5);
  ASSERT_EQ(base.size(), 16u);
  const auto same = cs::gpu::rank_compare_table(base, base);
  EXPECT_EQ(same.rows(), 16u * 7);
  for (const auto& v : same.columns[6].strings) EXPECT_EQ(v, "same");
  const auto t = cs::gpu::rank_compare_table(base, slow);
  EXPECT_EQ(verdict(t, 5, "computing"), "regression");
  for (int r = 0; r < 16; ++r) {
    if (r != 5) {
      EXPECT_EQ(verdict(t, r, "computing"), "same") << r;
    }
  }
  EXPECT_EQ(verdict(t, 4, "communication"), "regression");  // its TP peer waits for it
  const auto c = cs::gpu::collective_compare_table(base, slow);
  ASSERT_GT(c.rows(), 0u);
  for (const auto& v : c.columns[9].strings) EXPECT_EQ(v, "same");
}

}  // namespace

namespace {

TEST(GpuGenerate, ForceReplacesAnEarlierGpuJob) {
  cs::test::TempDir dir("gpu_force");
  for (int ranks : {8, 4}) {
    cs::io::Diagnostics diag;
    ASSERT_EQ(cs::generator::prepare_output_dir(dir.str(), true, diag),
              cs::generator::OutputDirState::kReady)
        << cs::test::all_diags(diag);
    cs::generator::GeneratorOptions o;
    o.ranks = ranks;
    o.tp = 2;
    o.steps = 1;
    o.framework = cs::generator::FrameworkKind::kKineto;
    ASSERT_TRUE(cs::generator::generate_cluster(dir.str(), o, diag)) << cs::test::all_diags(diag);
  }
  EXPECT_EQ(cs::gpu::discover_gpu_traces(dir.str()).traces.size(), 4u);  // no stale rank-4..7
}

}  // namespace
