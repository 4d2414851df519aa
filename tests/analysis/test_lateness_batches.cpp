// The collective lateness walked a batch of communication groups at a time (analysis/
// lateness_walk.h) equals the whole walk (one batch) bit for bit, for batch sizes from one group
// per batch to all of them and 1, 2 and 4 threads, on a generated job (the project's generator,
// parsed by the real readers: tp, dp and pp groups, p2p ops, start times) with a slow rank; with
// half the ranks packed and a rank listed twice as well. The slow-rank findings are the same too.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/collective_lateness.h"
#include "analysis/lateness_walk.h"
#include "analysis/operators_topn.h"
#include "analysis/slow_rank.h"
#include "generator/generator.h"
#include "load/discovery.h"
#include "load/rank_parser.h"
#include "msprof_analyze/documents/communication_groups.h"
#include "support/exact_bits.h"
#include "support/test_files.h"

namespace cs::analysis {
namespace {

constexpr size_t kWhole = std::numeric_limits<size_t>::max();

std::vector<load::RankData> generated_job(const std::string& dir) {
  generator::GeneratorOptions o;
  o.ranks = 64;
  o.tp = 4;
  o.pp = 2;
  o.steps = 2;
  o.seed = 11;
  o.rank_jitter = 0.01;
  o.host_noise_us = 2500;
  o.trace_view = 0;
  o.slow_ranks.push_back({13, 1.3});
  io::Diagnostics diag;
  EXPECT_TRUE(generator::generate_cluster(dir, o, diag));
  auto disc = load::discover_ranks(dir);
  EXPECT_FALSE(disc.fatal);
  std::vector<load::RankData> ranks;
  for (const auto& e : disc.ranks) ranks.push_back(load::parse_rank(e, load::ParseOptions{}));
  std::sort(ranks.begin(), ranks.end(),
            [](const load::RankData& a, const load::RankData& b) { return a.rank() < b.rank(); });
  return ranks;
}

using cs::test::bits;

void expect_same_lateness(const LatenessByRank& a, const LatenessByRank& b,
                          const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j) {
    ASSERT_EQ(i->first, j->first) << what;
    const RankLateness &x = i->second, &y = j->second;
    const std::string at = what + ", rank " + std::to_string(i->first);
    EXPECT_EQ(x.instances, y.instances) << at;
    EXPECT_EQ(x.trials, y.trials) << at;
    EXPECT_EQ(x.last, y.last) << at;
    EXPECT_EQ(bits(x.expected), bits(y.expected)) << at;
    EXPECT_EQ(bits(x.variance), bits(y.variance)) << at;
    EXPECT_EQ(bits(x.imposed_ms), bits(y.imposed_ms)) << at;
    EXPECT_EQ(x.late_steps, y.late_steps) << at;
    EXPECT_EQ(bits(x.own_wait_ms), bits(y.own_wait_ms)) << at;
    EXPECT_EQ(bits(x.transit_rel), bits(y.transit_rel)) << at;
    EXPECT_EQ(x.transit_n, y.transit_n) << at;
    EXPECT_EQ(x.steps, y.steps) << at;
    EXPECT_EQ(x.max_group, y.max_group) << at;
  }
}

TEST(LatenessBatches, BatchedEqualsWholeBitForBit) {
  test::TempDir tmp("cs_lateness");
  std::vector<load::RankData> ranks = generated_job(tmp.str());
  ASSERT_EQ(ranks.size(), 64u);
  io::Diagnostics gd;
  const auto groups = documents::build_comm_groups(ranks, documents::GroupOptions{}, gd);
  const stats::RankStages stages = rank_stages(ranks, &groups);

  const auto whole = collective_lateness(ranks, stages, {1, kWhole});
  ASSERT_EQ(LatenessWalk(ranks, 1, kWhole).size(), 1u);
  // The slow rank is last far more often than chance, with a cost of its own in both steps.
  ASSERT_NE(whole.find(13), nullptr);
  EXPECT_EQ(whole.find(-7), nullptr);
  EXPECT_THROW(whole.at(-7), std::out_of_range);
  EXPECT_GT(whole.at(13).last_z(), 2.5);
  EXPECT_EQ(whole.at(13).late_steps.size(), 2u);
  int last = 0, decided = 0;  // each decided instance has one last member
  double chance = 0;
  for (const auto& [r, l] : whole) {
    last += l.last;
    chance += l.expected;
  }
  decided = static_cast<int>(std::lround(chance));
  EXPECT_EQ(last, decided);

  const auto findings = analyze_slow_ranks(ranks, stages, {}).findings;
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings.front().rank, 13);

  for (size_t batch : {size_t{1}, size_t{7}, size_t{100}, size_t{1000}}) {
    EXPECT_GT(LatenessWalk(ranks, 1, batch).size(), 1u) << batch;
    for (int threads : {1, 2, 4}) {
      const std::string what =
          "batch " + std::to_string(batch) + ", threads " + std::to_string(threads);
      expect_same_lateness(whole, collective_lateness(ranks, stages, {threads, batch}), what);
      SlowRankOptions so;
      so.lateness = {threads, batch};
      const auto f = analyze_slow_ranks(ranks, stages, {}, so).findings;
      ASSERT_EQ(f.size(), findings.size()) << what;
      for (size_t i = 0; i < f.size(); ++i) {
        EXPECT_EQ(f[i].rank, findings[i].rank) << what;
        EXPECT_EQ(bits(f[i].score), bits(findings[i].score)) << what;
        EXPECT_EQ(f[i].cause, findings[i].cause) << what;
        EXPECT_EQ(f[i].evidence, findings[i].evidence) << what;
      }
    }
  }
}

TEST(LatenessBatches, PackedRanksAndARankListedTwice) {
  test::TempDir tmp("cs_lateness");
  std::vector<load::RankData> ranks = generated_job(tmp.str());
  ASSERT_EQ(ranks.size(), 64u);
  const auto plain = collective_lateness(ranks, {}, {1, kWhole});
  for (size_t p = 0; p < ranks.size(); p += 2) ranks[p].communication.pack();
  expect_same_lateness(plain, collective_lateness(ranks, {}, {2, 5}), "half packed");

  // A rank listed twice: its totals add up in order, its instances keep its first report.
  ranks.push_back(ranks[21]);
  const auto twice = collective_lateness(ranks, {}, {1, kWhole});
  EXPECT_EQ(twice.at(21).steps, 2 * plain.at(21).steps);
  EXPECT_EQ(twice.at(21).instances, plain.at(21).instances);
  for (size_t batch : {size_t{1}, size_t{9}})
    for (int threads : {1, 4})
      expect_same_lateness(twice, collective_lateness(ranks, {}, {threads, batch}),
                           "twice, batch " + std::to_string(batch));
}

}  // namespace
}  // namespace cs::analysis
