// Slow transfers per op class (analysis/slow_transfer.h): synthetic clusters built in memory, and
// generated clusters parsed with the real readers (also read in batches of groups of any size).

#include "analysis/slow_transfer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <tuple>

#include "analysis/link_observations.h"
#include "analysis/synthetic_cluster.h"
#include "generator/generator.h"
#include "load/discovery.h"
#include "load/rank_parser.h"
#include "msprof_analyze/documents/cluster_matrix.h"
#include "msprof_analyze/documents/communication_groups.h"

namespace cs::analysis {
namespace {

namespace fs = std::filesystem;

// Multiplies the elapse and transit of op `name` in `step` on every rank reporting it.
void slow_op(std::vector<load::RankData>& ranks, const std::string& step, const std::string& name,
             double factor) {
  for (auto& r : ranks)
    for (auto& s : r.communication.edit().steps)
      if (s.step == step)
        for (auto& op : s.collective)
          if (op.name == name)
            for (auto f : {readers::kElapseTimeMs, readers::kTransitTimeMs})
              op.time.set(f, io::Num::real(op.time.get(f) * factor));
}

TEST(SlowTransfer, OpType) {
  EXPECT_EQ(analysis::comm_op_type("hcom_allReduce__844_2_1@1368"), "allreduce");
  EXPECT_EQ(analysis::comm_op_type("hcom_reduceScatter_2"), "reducescatter");
  EXPECT_EQ(analysis::comm_op_type("HcclAllReduce"), "hcclallreduce");
  EXPECT_EQ(analysis::comm_op_type(""), "");
}

TEST(SlowTransfer, CleanAndSlowRankClustersHaveNone) {
  testing::SyntheticOptions o;
  EXPECT_TRUE(analysis::find_slow_transfers(testing::synthetic_cluster(o), {}).empty());
  // A slow rank arrives late: its peers' elapse grows, the group's minimum does not.
  o.slow = {{6, 2.0}};
  o.seed = 7;
  EXPECT_TRUE(analysis::find_slow_transfers(testing::synthetic_cluster(o), {}).empty());
}

TEST(SlowTransfer, FlagsTheSlowOpAndNamesOnlyLinksInsideItsGroup) {
  testing::SyntheticOptions o;
  auto ranks = testing::synthetic_cluster(o);
  const std::string op = "hcom_allGather__1_3_1@tp1";  // ranks 4..7
  slow_op(ranks, "step2", op, 3.0);
  analysis::SlowLinkFinding inside, outside;
  inside.src_rank = 5, inside.dst_rank = 6, inside.transport = "HCCS", inside.ratio = 0.3;
  outside.src_rank = 0, outside.dst_rank = 1, outside.transport = "HCCS", outside.ratio = 0.5;

  const auto found = analysis::find_slow_transfers(ranks, {outside, inside});
  ASSERT_EQ(found.size(), 1u);
  const auto& f = found[0];
  EXPECT_EQ(f.op, op);
  EXPECT_EQ(f.step, "step2");
  EXPECT_EQ(f.op_type, "allgather");
  EXPECT_EQ(f.group_size, 4);
  EXPECT_EQ(f.size_mb, 8.0);
  EXPECT_EQ(f.ranks, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_NEAR(f.ratio, 3.0, 0.3);
  EXPECT_NEAR(f.transfer_ms, 3 * f.expected_ms, 0.3 * f.expected_ms);
  ASSERT_EQ(f.links.size(), 1u);
  EXPECT_EQ(f.links[0], (std::pair<int, int>{5, 6}));
  EXPECT_NE(f.evidence.find("HCCS 5->6"), std::string::npos) << f.evidence;
  EXPECT_EQ(f.evidence.find("0->1"), std::string::npos) << f.evidence;

  // No slow link inside the group: the op is still reported, and no link is named.
  const auto alone = analysis::find_slow_transfers(ranks, {outside});
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_TRUE(alone[0].links.empty());
  EXPECT_NE(alone[0].evidence.find("no link of this group"), std::string::npos);

  // Below min_ratio: not reported.
  analysis::SlowTransferOptions strict;
  strict.min_ratio = 4.0;
  EXPECT_TRUE(analysis::find_slow_transfers(ranks, {}, strict).empty());
}

TEST(SlowTransfer, Table) {
  testing::SyntheticOptions o;
  auto ranks = testing::synthetic_cluster(o);
  slow_op(ranks, "step1", "hcom_allGather__1_0_1@tp2", 2.0);
  slow_op(ranks, "step3", "hcom_allGather__1_5_1@tp0", 4.0);
  auto t = analysis::slow_transfers_table(analysis::find_slow_transfers(ranks, {}));
  t.validate();
  EXPECT_EQ(t.name, "slow_transfers");
  std::vector<std::string> names;
  for (const auto& c : t.columns) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"op_type", "size_mb", "group_size", "step", "op",
                                             "transfer_ms", "expected_ms", "ratio", "evidence"}));
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.find("step")->strings[0], "step3");  // largest ratio first
  EXPECT_EQ(t.find("step")->strings[1], "step1");
  EXPECT_EQ(analysis::slow_transfers_table({}).rows(), 0u);
}

// Generated cluster -> (slow transfers, slow links).
std::vector<analysis::SlowTransferFinding> generated(const std::string& name,
                                                     const generator::GeneratorOptions& o) {
  const fs::path dir = fs::path(CS_BUILD_DIR) / "slow_transfer_test" / name;
  fs::remove_all(dir);
  io::Diagnostics gdiag;
  EXPECT_TRUE(generator::generate_cluster(dir.string(), o, gdiag));
  auto disc = load::discover_ranks(dir.string());
  std::vector<load::RankData> ranks;
  for (const auto& e : disc.ranks) ranks.push_back(load::parse_rank(e, load::ParseOptions{}));
  io::Diagnostics d;
  auto groups = documents::build_comm_groups(ranks, documents::GroupOptions{}, d);
  auto links = analysis::find_slow_links(
      analysis::link_observations(documents::merge_matrix_links(ranks, groups, d)));
  auto found = analysis::find_slow_transfers(ranks, links);
  fs::remove_all(dir);
  return found;
}

// A generated job of `ranks` ranks, tp 4, `pp` stages and 3 steps (seed 5).
generator::GeneratorOptions three_step_job(int ranks, int pp) {
  generator::GeneratorOptions o;
  o.ranks = ranks;
  o.tp = 4;
  o.pp = pp;
  o.steps = 3;
  o.seed = 5;
  return o;
}

TEST(SlowTransfer, GeneratedClusters) {
  generator::GeneratorOptions o = three_step_job(16, 1);
  EXPECT_TRUE(generated("clean", o).empty());
  o.slow_ranks.push_back({9, 1.5});
  EXPECT_TRUE(generated("slow_rank", o).empty());
  o.slow_ranks.clear();
  o.slow_links.push_back({1, 2, 1.0 / 0.3});
  const auto found = generated("slow_link", o);
  ASSERT_FALSE(found.empty());
  for (const auto& f : found) {
    // Every slow op is in a group holding the slowed link, and the matrix agrees.
    EXPECT_TRUE(std::count(f.ranks.begin(), f.ranks.end(), 1) &&
                std::count(f.ranks.begin(), f.ranks.end(), 2))
        << f.evidence;
    EXPECT_GE(f.ratio, 1.3);
    EXPECT_FALSE(f.links.empty()) << f.evidence;
  }
}

// Read a batch of groups at a time (analysis/group_batches.h), any batch size finds the same slow
// transfers, field for field, and leaves the same number unjudged, as one batch of every group;
// so do the ranks read on several threads a window at a time.
TEST(SlowTransfer, BatchesOfGroupsFindTheSameAsOneBatch) {
  generator::GeneratorOptions o = three_step_job(32, 2);
  o.slow_links.push_back({1, 2, 1.0 / 0.3});
  o.slow_links.push_back({17, 18, 1.0 / 0.4});
  const fs::path dir = fs::path(CS_BUILD_DIR) / "slow_transfer_test" / "batches";
  fs::remove_all(dir);
  io::Diagnostics gdiag;
  ASSERT_TRUE(generator::generate_cluster(dir.string(), o, gdiag));
  std::vector<load::RankData> ranks;
  for (const auto& e : load::discover_ranks(dir.string()).ranks)
    ranks.push_back(load::parse_rank(e, load::ParseOptions{}));
  fs::remove_all(dir);
  io::Diagnostics d;
  auto groups = documents::build_comm_groups(ranks, documents::GroupOptions{}, d);
  const auto links = analysis::find_slow_links(
      analysis::link_observations(documents::merge_matrix_links(ranks, groups, d)));
  SlowTransferOptions whole_opts;
  whole_opts.batch_reports = std::numeric_limits<size_t>::max();
  size_t whole_unjudged = 0;
  const auto whole = analysis::find_slow_transfers(ranks, links, whole_opts, &whole_unjudged);
  ASSERT_GE(whole.size(), 2u);
  EXPECT_GT(whole_unjudged, 0u);
  // Batches of any size, read on 1 or 3 threads, a window of 1, 5 or all ranks at a time.
  const std::tuple<size_t, int, size_t> runs[] = {{1, 1, 256},   {5, 3, 5},   {50, 3, 1},
                                                  {400, 1, 256}, {400, 3, 7}, {50, 2, 256}};
  for (const auto& [batch, threads, window] : runs) {
    SlowTransferOptions so;
    so.batch_reports = batch;
    so.threads = threads;
    so.window_ranks = window;
    size_t unjudged = 0;
    const auto found = analysis::find_slow_transfers(ranks, links, so, &unjudged);
    EXPECT_EQ(unjudged, whole_unjudged) << batch;
    ASSERT_EQ(found.size(), whole.size()) << batch;
    for (size_t i = 0; i < found.size(); ++i) {
      const SlowTransferFinding &a = found[i], &b = whole[i];
      EXPECT_EQ(a.op_type, b.op_type);
      EXPECT_EQ(a.size_mb, b.size_mb);
      EXPECT_EQ(a.group_size, b.group_size);
      EXPECT_EQ(a.step, b.step);
      EXPECT_EQ(a.op, b.op);
      EXPECT_EQ(a.transfer_ms, b.transfer_ms);
      EXPECT_EQ(a.expected_ms, b.expected_ms);
      EXPECT_EQ(a.ratio, b.ratio);
      EXPECT_EQ(a.z, b.z);
      EXPECT_EQ(a.class_ops, b.class_ops);
      EXPECT_EQ(a.ranks, b.ranks);
      EXPECT_EQ(a.links, b.links);
      EXPECT_EQ(a.evidence, b.evidence) << batch;
    }
  }
}

}  // namespace
}  // namespace cs::analysis
