// Diagnosis accuracy on generated clusters (generator/): clean clusters, slow ranks at
// 1.1x / 1.3x / 2x, two slow ranks, slow links at 0.3x / 0.7x, a slow rank with a slow link, and
// a slow kernel type (with and without pipeline stages), over several TP/PP/DP shapes from 16 to
// 512 ranks. Each generated directory is parsed with the real readers (discovery + parse_rank),
// then slow ranks, slow links, slow transfers and the operator ranking (peer-relative cross-rank
// CV) are checked against the injected faults. Precision and recall are printed and asserted over
// the whole suite; clean clusters must keep a low top CV and report no slow transfer.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "analysis/diagnosis_summary.h"
#include "analysis/link_observations.h"
#include "analysis/operators_topn.h"
#include "analysis/slow_link.h"
#include "analysis/slow_rank.h"
#include "analysis/slow_transfer.h"
#include "generator/generator.h"
#include "load/discovery.h"
#include "load/rank_parser.h"
#include "msprof/cluster_matrix.h"
#include "msprof/communication_groups.h"

namespace cs::cluster {
namespace {

namespace fs = std::filesystem;

struct Scenario {
  std::string name;
  generator::GeneratorOptions opts;
};

struct Score {
  int tp = 0, fp = 0, fn = 0;
  void add(const std::set<int>& truth, const std::set<int>& found, const std::set<int>& allowed,
           std::string* report) {
    for (int r : found) {
      if (truth.count(r))
        ++tp;
      else if (!allowed.count(r))
        ++fp, *report += " FP " + std::to_string(r);
    }
    for (int r : truth)
      if (!found.count(r)) ++fn, *report += " FN " + std::to_string(r);
  }
  double precision() const { return tp + fp ? static_cast<double>(tp) / (tp + fp) : 1.0; }
  double recall() const { return tp + fn ? static_cast<double>(tp) / (tp + fn) : 1.0; }
};

// Test-local loader: discovery, then every rank parsed with the real readers, in rank order.
std::vector<RankData> load(const std::string& dir) {
  auto disc = discover_ranks(dir);
  EXPECT_FALSE(disc.fatal) << dir;
  std::vector<RankData> ranks;
  ParseOptions po;
  for (const auto& e : disc.ranks) ranks.push_back(parse_rank(e, po));
  return ranks;
}

generator::GeneratorOptions shape(int ranks, int tp, int pp, uint64_t seed, int steps = 3) {
  generator::GeneratorOptions o;
  o.ranks = ranks;
  o.tp = tp;
  o.pp = pp;
  o.steps = steps;
  o.seed = seed;
  return o;
}

std::vector<Scenario> scenarios() {
  std::vector<Scenario> v;
  auto add = [&](std::string name, generator::GeneratorOptions o) {
    v.push_back({std::move(name), std::move(o)});
  };
  // Clean clusters, several shapes.
  add("clean_16_tp4_pp2", shape(16, 4, 2, 1));
  add("clean_32_tp8_pp1", shape(32, 8, 1, 2));
  add("clean_16_tp1_pp1", shape(16, 1, 1, 3));
  add("clean_64_tp2_pp4", shape(64, 2, 4, 4));
  // One slow rank at 1.1x, 1.3x, 2x.
  for (double f : {1.1, 1.3, 2.0}) {
    auto o = shape(32, 4, 2, 10 + static_cast<uint64_t>(f * 10));
    o.slow_ranks.push_back({13, f});
    add("slow_rank_" + std::to_string(f).substr(0, 3) + "_32_tp4_pp2", o);
  }
  {
    auto o = shape(16, 1, 1, 21);
    o.slow_ranks.push_back({5, 1.3});
    add("slow_rank_1.3_16_tp1_pp1", o);
  }
  {
    auto o = shape(64, 8, 2, 22);
    o.slow_ranks.push_back({3, 1.1});
    add("slow_rank_1.1_64_tp8_pp2", o);
  }
  // Two slow ranks in different groups.
  {
    auto o = shape(64, 4, 2, 30);
    o.slow_ranks.push_back({6, 1.3});
    o.slow_ranks.push_back({45, 2.0});
    add("two_slow_ranks_64_tp4_pp2", o);
  }
  // Slow links: inside a node (HCCS) and across nodes (RDMA).
  for (double f : {0.3, 0.7}) {
    auto o = shape(32, 4, 2, 40 + static_cast<uint64_t>(f * 10));
    o.slow_links.push_back({1, 2, 1.0 / f});
    add("slow_link_hccs_" + std::to_string(f).substr(0, 3), o);
  }
  {
    auto o = shape(32, 4, 1, 45);                // dp 8: DP groups cross nodes
    o.slow_links.push_back({6, 10, 1.0 / 0.7});  // DP ring 2-6-10-...: 6 and 10 on two nodes
    add("slow_link_rdma_0.7_32_tp4", o);
  }
  // Slow rank and slow link together.
  {
    auto o = shape(32, 4, 2, 50);
    o.slow_ranks.push_back({9, 1.3});
    o.slow_links.push_back({16, 17, 1.0 / 0.5});
    add("slow_rank_and_link_32", o);
  }
  // A slow kernel type on one rank. With pp > 1 the stages run different kernel mixes (the last
  // one has the LM head's Cast and MatMul): the CV among stage peers must still find the kernel.
  {
    auto o = shape(16, 4, 1, 60);
    o.slow_kernels.push_back({7, "FlashAttentionScore", 3.0});
    add("slow_kernel_16_tp4", o);
  }
  {
    auto o = shape(64, 8, 1, 61);
    o.slow_kernels.push_back({42, "LayerNorm", 2.0});
    add("slow_kernel_64_tp8", o);
  }
  {
    auto o = shape(16, 4, 2, 62);
    o.slow_kernels.push_back({5, "FlashAttentionScore", 2.0});
    add("slow_kernel_16_tp4_pp2", o);
  }
  {
    auto o = shape(64, 4, 4, 63);
    o.slow_kernels.push_back({50, "LayerNorm", 2.0});
    add("slow_kernel_64_tp4_pp4", o);
  }
  {
    auto o = shape(32, 2, 4, 64);
    o.slow_kernels.push_back({31, "MatMul", 1.5});  // a kernel type the last stage runs more of
    add("slow_kernel_32_tp2_pp4_last_stage", o);
  }
  // Large: 512 ranks.
  {
    auto o = shape(512, 8, 4, 70, 2);
    o.slow_ranks.push_back({300, 1.3});
    o.slow_links.push_back({64, 65, 1.0 / 0.5});
    add("slow_rank_and_link_512_tp8_pp4", o);
  }
  return v;
}

TEST(DiagnosisAccuracy, GeneratedClusters) {
  const fs::path root = fs::path(CS_BUILD_DIR) / "diagnosis_accuracy";
  Score ranks_score, links_score, transfer_score;
  int kernel_hits = 0, kernel_cases = 0, plain_kernel_misses = 0;
  double clean_top_cv = 0;  // largest top compute-key CV over the clean clusters
  for (const auto& sc : scenarios()) {
    const fs::path dir = root / sc.name;
    fs::remove_all(dir);
    io::Diagnostics gdiag;
    ASSERT_TRUE(generator::generate_cluster(dir.string(), sc.opts, gdiag))
        << sc.name << ": " << (gdiag.empty() ? "" : gdiag.items().front().to_string());
    auto ranks = load(dir.string());
    ASSERT_EQ(static_cast<int>(ranks.size()), sc.opts.ranks) << sc.name;

    std::set<int> truth_ranks, kernel_ranks, found_ranks;
    for (const auto& s : sc.opts.slow_ranks) truth_ranks.insert(s.rank);
    for (const auto& k : sc.opts.slow_kernels) kernel_ranks.insert(k.rank);
    const auto slow_ranks = find_slow_ranks(ranks);
    for (const auto& f : slow_ranks) found_ranks.insert(f.rank);

    io::Diagnostics mdiag;
    auto groups = build_comm_groups(ranks, GroupOptions{}, mdiag);
    const auto slow_links =
        find_slow_links(link_observations(merge_matrix_links(ranks, groups, mdiag)));
    // A slowed link is one physical link: either direction counts as found.
    std::set<int> truth_links, found_links;
    auto link_id = [](int a, int b) { return std::min(a, b) * 100000 + std::max(a, b); };
    for (const auto& l : sc.opts.slow_links) truth_links.insert(link_id(l.src, l.dst));
    for (const auto& f : slow_links) found_links.insert(link_id(f.src_rank, f.dst_rank));

    std::string report;
    // A rank with a slowed kernel type is slow too (cause compute): allowed, not required.
    ranks_score.add(truth_ranks, found_ranks, kernel_ranks, &report);
    links_score.add(truth_links, found_links, {}, &report);

    // Slow transfers: an injected link is found when some slow op's group holds both its ends;
    // every other group with a slow op is a false positive (slow ranks must not cause any).
    const auto slow_transfers = find_slow_transfers(ranks, slow_links);
    std::set<int> found_transfer_links, false_groups;
    for (const auto& f : slow_transfers) {
      bool matched = false;
      for (const auto& l : sc.opts.slow_links) {
        if (std::binary_search(f.ranks.begin(), f.ranks.end(), l.src) &&
            std::binary_search(f.ranks.begin(), f.ranks.end(), l.dst)) {
          found_transfer_links.insert(link_id(l.src, l.dst));
          matched = true;
        }
      }
      // The group's smallest rank and size name it well enough for counting.
      if (!matched) false_groups.insert(f.ranks.front() * 100000 + f.group_size);
    }
    std::string transfer_report;
    transfer_score.add(truth_links, found_transfer_links, {}, &transfer_report);
    transfer_score.fp += static_cast<int>(false_groups.size());
    if (!transfer_report.empty()) report += " transfers:" + transfer_report;
    if (!false_groups.empty())
      report += " transfers: " + std::to_string(false_groups.size()) + " false group(s), e.g. " +
                slow_transfers.front().evidence;

    auto merged = merge_operators(ranks);
    auto by_cv = stats::select_topn(merged, 0, stats::OrderBy::kCv, rank_stages(ranks, &groups));
    const bool clean =
        sc.opts.slow_ranks.empty() && sc.opts.slow_links.empty() && sc.opts.slow_kernels.empty();
    if (clean && !by_cv.empty()) {
      clean_top_cv = std::max(clean_top_cv, by_cv.front().cross_rank_cv);
      // No false slow kernel: a clean cluster's peers run the same kernels at the same speed.
      EXPECT_LT(by_cv.front().cross_rank_cv, kNotableOperatorCv)
          << sc.name << ": " << by_cv.front().key;
    }
    if (!sc.opts.slow_kernels.empty()) {
      ++kernel_cases;
      const auto& k = sc.opts.slow_kernels.front();
      const bool hit = !by_cv.empty() && by_cv.front().key.rfind(k.type, 0) == 0 &&
                       by_cv.front().max_rank == k.rank;
      kernel_hits += hit;
      // For the record: the plain CV over all ranks (no stage peers) and what it puts on top.
      const auto plain = stats::select_topn(merged, 1, stats::OrderBy::kCv);
      if (!plain.empty() && plain.front().key.rfind(k.type, 0) != 0) ++plain_kernel_misses;
      if (!hit)
        report += " slow kernel not on top of the CV ranking (top: " +
                  (by_cv.empty() ? std::string("none") : by_cv.front().key) + ")";
    }
    std::printf(
        "[ %-34s ] ranks %3zu: slow ranks %zu, slow links %zu, slow transfers %zu, top CV %s "
        "%.3f%s\n",
        sc.name.c_str(), ranks.size(), slow_ranks.size(), slow_links.size(), slow_transfers.size(),
        by_cv.empty() ? "-" : by_cv.front().key.c_str(),
        by_cv.empty() ? 0.0 : by_cv.front().cross_rank_cv,
        report.empty() ? "" : (" —" + report).c_str());
    if (!report.empty())
      std::printf("%s", diagnosis_summary(slow_ranks, slow_links, by_cv).c_str());
    fs::remove_all(dir);
  }
  std::printf("slow ranks: precision %.3f recall %.3f (tp %d fp %d fn %d)\n",
              ranks_score.precision(), ranks_score.recall(), ranks_score.tp, ranks_score.fp,
              ranks_score.fn);
  std::printf("slow links: precision %.3f recall %.3f (tp %d fp %d fn %d)\n",
              links_score.precision(), links_score.recall(), links_score.tp, links_score.fp,
              links_score.fn);
  std::printf("slow transfers (by injected link): precision %.3f recall %.3f (tp %d fp %d fn %d)\n",
              transfer_score.precision(), transfer_score.recall(), transfer_score.tp,
              transfer_score.fp, transfer_score.fn);
  std::printf(
      "slow kernel on top of cross-rank CV: %d of %d (plain CV over all ranks misses %d); "
      "clean clusters' top CV %.3f\n",
      kernel_hits, kernel_cases, plain_kernel_misses, clean_top_cv);
  EXPECT_GE(ranks_score.precision(), 0.9);
  EXPECT_GE(ranks_score.recall(), 0.9);
  EXPECT_GE(links_score.precision(), 0.9);
  EXPECT_GE(links_score.recall(), 0.9);
  EXPECT_GE(transfer_score.precision(), 0.9);
  EXPECT_GE(transfer_score.recall(), 0.9);
  EXPECT_EQ(kernel_hits, kernel_cases);
}

}  // namespace
}  // namespace cs::cluster
