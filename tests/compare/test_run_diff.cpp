// Run vs run on generated cluster pairs: an injected fault is the top significant regression,
// noise (same seed, or another seed) gives none.
#include "compare/run_diff.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "generator/generator.h"
#include "load/discovery.h"
#include "load/rank_parser.h"

namespace {

namespace fs = std::filesystem;
using cs::compare::Regression;
using cs::load::RankData;

fs::path temp_root() {
  static const fs::path p = [] {
    auto d = fs::temp_directory_path() / ("cs-run-diff-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
  }();
  // Removed when the test program exits.
  static const struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{p};
  return p;
}

cs::generator::GeneratorOptions base_options(uint64_t seed) {
  cs::generator::GeneratorOptions o;
  o.ranks = 16;
  o.tp = 4;
  o.pp = 2;
  o.steps = 3;
  o.seed = seed;
  return o;
}

// Generates (once per name) and parses every rank, sorted by rank.
std::vector<RankData> generated_ranks(const std::string& name,
                                      const cs::generator::GeneratorOptions& o) {
  const auto dir = temp_root() / name;
  if (!fs::exists(dir)) {
    cs::io::Diagnostics diag;
    EXPECT_TRUE(cs::generator::generate_cluster(dir.string(), o, diag));
  }
  std::vector<RankData> out;
  for (const auto& e : cs::load::discover_ranks(dir.string()).ranks)
    out.push_back(cs::load::parse_rank(e, {}));
  std::sort(out.begin(), out.end(),
            [](const RankData& a, const RankData& b) { return a.rank() < b.rank(); });
  return out;
}

std::vector<Regression> significant(const std::vector<Regression>& r) {
  std::vector<Regression> s;
  for (const auto& x : r)
    if (x.significant) s.push_back(x);
  return s;
}

std::string dump(const std::vector<Regression>& r) {
  std::string s;
  for (size_t i = 0; i < r.size() && i < 8; ++i)
    s += r[i].what + " | " + r[i].key + " | " + r[i].where + " | " +
         std::to_string(r[i].impact_us) + " noise " + std::to_string(r[i].noise_us) +
         (r[i].significant ? " SIG\n" : "\n");
  return s;
}

TEST(RunNoise, OutlierAndShift) {
  cs::compare::MemberValues v{{1000, 1000, 1000, 1000, 1000}, {1001, 999, 1000, 1002, 1800}};
  auto a = cs::compare::assess_members(v, {});
  EXPECT_EQ(a.extreme, 4u);
  EXPECT_TRUE(a.outlier);
  EXPECT_TRUE(a.significant);
  EXPECT_NEAR(a.impact, 799, 1e-9);
  cs::compare::MemberValues shift{{1000, 1000, 1000}, {1200, 1201, 1199}};
  a = cs::compare::assess_members(shift, {});
  EXPECT_TRUE(a.shift);
  EXPECT_FALSE(a.outlier);
  EXPECT_NEAR(a.impact, 200, 1e-9);
  cs::compare::MemberValues noise{{1000, 1000, 1000, 1000}, {1005, 995, 1010, 990}};
  EXPECT_FALSE(cs::compare::assess_members(noise, {}).significant);
  EXPECT_FALSE(cs::compare::assess_members({}, {}).significant);
}

TEST(RunDiff, SameSeedHasNoRegression) {
  const auto a = generated_ranks("seed1", base_options(1));
  const auto b = generated_ranks("seed1b", base_options(1));
  cs::io::Diagnostics diag;
  const auto t = cs::compare::compare_runs(a, b, {}, diag);
  EXPECT_EQ(t.ranks_compared, 16);
  EXPECT_TRUE(significant(t.ranked).empty()) << dump(t.ranked);
  ASSERT_GT(t.rank_diff.rows(), 16u * 3u * 8u);
  for (double d : t.rank_diff.find("diff_us")->doubles) EXPECT_EQ(d, 0);
  EXPECT_EQ(diag.warning_count(), 0u);
}

TEST(RunDiff, OtherSeedIsNoise) {
  const auto a = generated_ranks("seed1", base_options(1));
  const auto b = generated_ranks("seed2", base_options(2));
  cs::io::Diagnostics diag;
  const auto t = cs::compare::compare_runs(a, b, {}, diag);
  EXPECT_TRUE(significant(t.ranked).empty()) << dump(t.ranked);
  // The seeds do differ: some step metrics changed.
  const auto& d = t.rank_diff.find("diff_us")->doubles;
  EXPECT_TRUE(std::any_of(d.begin(), d.end(), [](double x) { return x != 0; }));
}

TEST(RunDiff, SlowRankIsTop) {
  auto o = base_options(1);
  o.slow_ranks.push_back({5, 1.6});
  const auto a = generated_ranks("seed1", base_options(1));
  const auto b = generated_ranks("slow_rank5", o);
  cs::io::Diagnostics diag;
  const auto s = significant(cs::compare::find_regressions(a, b, {}, diag));
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s[0].what, "rank") << dump(s);
  EXPECT_EQ(s[0].key, "rank 5") << dump(s);
  EXPECT_GT(s[0].impact_us, 0);
}

TEST(RunDiff, SlowKernelIsTop) {
  auto o = base_options(1);
  o.slow_kernels.push_back({3, "MatMul", 3.0});
  const auto a = generated_ranks("seed1", base_options(1));
  const auto b = generated_ranks("slow_kernel3", o);
  cs::io::Diagnostics diag;
  const auto s = significant(cs::compare::find_regressions(a, b, {}, diag));
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s[0].where, "rank 3") << dump(s);
  EXPECT_TRUE(s[0].what == "operator" ? s[0].key.find("MatMul") == 0 : s[0].key == "rank 3")
      << dump(s);
}

TEST(RunDiff, SlowLinkIsTop) {
  auto o = base_options(1);
  o.slow_links.push_back({0, 1, 4.0});
  const auto a = generated_ranks("seed1", base_options(1));
  const auto b = generated_ranks("slow_link01", o);
  cs::io::Diagnostics diag;
  const auto s = significant(cs::compare::find_regressions(a, b, {}, diag));
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s[0].what, "link") << dump(s);
  EXPECT_TRUE(s[0].key.rfind("0-1 ", 0) == 0 || s[0].key.rfind("1-0 ", 0) == 0) << dump(s);
}

TEST(RunDiff, MissingRankIsWarned) {
  auto a = generated_ranks("seed1", base_options(1));
  auto b = a;
  b.pop_back();
  cs::io::Diagnostics diag;
  const auto t = cs::compare::compare_runs(a, b, {}, diag);
  EXPECT_EQ(t.ranks_compared, 16);
  EXPECT_EQ(diag.warning_count(), 1u);
}

}  // namespace
