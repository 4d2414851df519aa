// Diagnosis accuracy on generated GPU jobs (`generate --framework kineto`): slow ranks and slow
// links found with precision and recall >= 0.95 over 24 scenarios, clean jobs silent, and each
// rank's step table equal to its trace's kernel time. The table is in docs/gpu_cluster.md.

#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "generator/generator.h"
#include "gpu/gpu_collectives.h"
#include "gpu/gpu_diagnosis.h"
#include "gpu/gpu_discovery.h"
#include "gpu/gpu_run.h"
#include "support/test_files.h"

namespace {

namespace gen = cs::generator;

struct Scenario {
  const char* name;
  int ranks, tp, pp;
  std::vector<gen::SlowRank> slow_ranks;
  std::vector<gen::SlowLink> slow_links;
};

// Slow links are put where the group structure can locate them: between pipeline neighbours
// (a two-rank point-to-point communicator). A slow link inside a larger ring shows as a slow
// group without a link (docs/gpu_cluster.md).
std::vector<Scenario> scenarios() {
  return {
      {"clean 8 tp2 pp2", 8, 2, 2, {}, {}},
      {"clean 16 tp4 pp2", 16, 4, 2, {}, {}},
      {"clean 16 tp2 pp4", 16, 2, 4, {}, {}},
      {"clean 8 tp8", 8, 8, 1, {}, {}},
      {"clean 16 tp4 pp4", 16, 4, 4, {}, {}},
      {"clean 12 tp2 pp3", 12, 2, 3, {}, {}},
      {"slow 5 x2", 16, 4, 2, {{5, 2.0}}, {}},
      {"slow 0 x1.5", 16, 4, 2, {{0, 1.5}}, {}},
      {"slow 15 x1.3", 16, 4, 2, {{15, 1.3}}, {}},
      {"slow 3 x1.2 tp2 pp2", 8, 2, 2, {{3, 1.2}}, {}},
      {"slow 6 x1.5 tp2 pp4", 16, 2, 4, {{6, 1.5}}, {}},
      {"slow 2 x2 tp8", 8, 8, 1, {{2, 2.0}}, {}},
      {"slow 1,10 x1.5", 16, 4, 2, {{1, 1.5}, {10, 1.5}}, {}},
      {"slow 7 x1.25 tp4 pp4", 16, 4, 4, {{7, 1.25}}, {}},
      {"slow 9 x1.5 tp2 pp3", 12, 2, 3, {{9, 1.5}}, {}},
      {"slow 4 x1.4 tp2 pp2", 8, 2, 2, {{4, 1.4}}, {}},
      {"link 0-8 x4", 16, 4, 2, {}, {{0, 8, 4.0}}},
      {"link 3-11 x3", 16, 4, 2, {}, {{3, 11, 3.0}}},
      {"link 1-5 x4 tp2 pp2", 8, 2, 2, {}, {{1, 5, 4.0}}},
      {"link 4-8 x4 tp2 pp4", 16, 2, 4, {}, {{4, 8, 4.0}}},
      {"link 2-6 x3 tp2 pp3", 12, 2, 3, {}, {{2, 6, 3.0}}},
      {"link 9-13 x4 tp4 pp4", 16, 4, 4, {}, {{9, 13, 4.0}}},
      {"slow 2 + link 4-12", 16, 4, 2, {{2, 1.5}}, {{4, 12, 4.0}}},
      {"slow 13 + link 0-8", 16, 4, 2, {{13, 1.6}}, {{0, 8, 3.0}}},
  };
}

struct Score {
  int tp = 0, fp = 0, fn = 0;
  double precision() const { return tp + fp ? static_cast<double>(tp) / (tp + fp) : 1.0; }
  double recall() const { return tp + fn ? static_cast<double>(tp) / (tp + fn) : 1.0; }
  void add(const std::set<std::string>& found, const std::set<std::string>& truth) {
    for (const auto& f : found) (truth.count(f) ? tp : fp) += 1;
    for (const auto& t : truth) fn += found.count(t) ? 0 : 1;
  }
};

TEST(GpuAccuracy, GeneratedJobs) {
  Score ranks, links;
  int clean_with_finding = 0, clean = 0, found_causes = 0, right_causes = 0;
  std::string table;
  for (const Scenario& sc : scenarios()) {
    SCOPED_TRACE(sc.name);
    cs::test::TempDir dir("gpu_acc");
    gen::GeneratorOptions o;
    o.ranks = sc.ranks;
    o.tp = sc.tp;
    o.pp = sc.pp;
    o.steps = 2;
    o.seed = 7;
    o.framework = gen::FrameworkKind::kKineto;
    o.rank_jitter = 0.01;
    o.host_noise_us = 500;
    o.slow_ranks = sc.slow_ranks;
    o.slow_links = sc.slow_links;
    cs::io::Diagnostics diag;
    ASSERT_TRUE(gen::generate_cluster(dir.str(), o, diag)) << cs::test::all_diags(diag);
    const auto d = cs::gpu::discover_gpu_traces(dir.str());
    ASSERT_FALSE(d.fatal) << cs::test::all_diags(d.diag);
    ASSERT_EQ(d.traces.size(), static_cast<size_t>(sc.ranks));
    std::vector<cs::gpu::GpuRankSummary> all;
    for (const auto& f : d.traces) all.push_back(cs::gpu::summarize_trace_file(f));
    std::vector<std::string> notes;
    const auto rs = cs::gpu::resolve_ranks(std::move(all), std::nullopt, notes);
    ASSERT_EQ(rs.size(), static_cast<size_t>(sc.ranks));
    EXPECT_TRUE(notes.empty());
    // Each step's parts add up to its window; compute + communication not overlapped never
    // exceeds the kernels' summed time.
    for (const auto& r : rs) {
      ASSERT_EQ(r.steps.size(), 2u);
      for (const auto& st : r.steps) {
        EXPECT_EQ(st.computing_ns + st.comm_not_overlapped_ns + st.memory_ns + st.free_ns,
                  st.window_ns);
        EXPECT_LE(st.computing_ns + st.comm_not_overlapped_ns, st.kernel_sum_ns);
      }
    }
    const auto inst = cs::gpu::match_collectives(rs);
    const auto slow_r = cs::gpu::find_slow_ranks(rs, cs::gpu::rank_waits(rs, inst), inst);
    const auto slow_g = cs::gpu::find_slow_groups(inst);
    std::set<std::string> fr, tr, fl, tl;
    for (const auto& s : slow_r) {
      fr.insert(std::to_string(s.rank));
      ++found_causes;
      right_causes += s.cause == "compute";  // every injected slow rank computes slower
    }
    for (const auto& s : sc.slow_ranks) tr.insert(std::to_string(s.rank));
    for (const auto& g : slow_g) fl.insert(g.link.empty() ? "group " + g.group : g.link);
    for (const auto& l : sc.slow_links)
      tl.insert(std::to_string(std::min(l.src, l.dst)) + "-" +
                std::to_string(std::max(l.src, l.dst)));
    ranks.add(fr, tr);
    links.add(fl, tl);
    if (tr.empty() && tl.empty()) {
      ++clean;
      clean_with_finding += !fr.empty() || !fl.empty();
    }
    std::string f;
    for (const auto& s : slow_r) f += "rank " + std::to_string(s.rank) + " (" + s.cause + ") ";
    for (const auto& x : fl) f += "link " + x + " ";
    table += std::string(sc.name) + ": " + (f.empty() ? "none" : f) + "\n";
  }
  std::printf("%s", table.c_str());
  std::printf(
      "slow ranks: precision %.2f recall %.2f; slow links: precision %.2f recall %.2f; "
      "clean jobs with a finding: %d of %d\n",
      ranks.precision(), ranks.recall(), links.precision(), links.recall(), clean_with_finding,
      clean);
  EXPECT_GE(ranks.precision(), 0.95);
  EXPECT_GE(ranks.recall(), 0.95);
  EXPECT_GE(links.precision(), 0.95);
  EXPECT_GE(links.recall(), 0.95);
  EXPECT_EQ(clean_with_finding, 0);
  EXPECT_EQ(right_causes, found_causes);
}

}  // namespace
