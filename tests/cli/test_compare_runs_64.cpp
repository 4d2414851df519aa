// End-to-end run vs run on a larger job: `clusterscope compare A B` on two generated 64-rank
// clusters (tp 4, pp 2, dp 8, same seed). One injected fault (a slow rank, or slow MatMul kernels
// on one rank) must be the top significant regression and the only rank flagged; two runs
// generated with the same seed and no fault must show no significant regression.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "generator/generator.h"

namespace {

namespace fs = std::filesystem;
using cs::test::read_file;
using cs::test::run_command;

// Removed when the test program exits.
const fs::path& compare_runs_64_root() {
  static const cs::test::ScratchDir dir("compare-runs-64");
  return dir.path();
}

// Generates (once per test process) a 64-rank tp4 pp2 cluster with seed 7, tweaked by `tweak`.
fs::path cluster_64(const std::string& name, void (*tweak)(cs::generator::GeneratorOptions&)) {
  const fs::path dir = compare_runs_64_root() / name;
  if (fs::exists(dir)) return dir;
  cs::generator::GeneratorOptions o;
  o.ranks = 64;
  o.tp = 4;
  o.pp = 2;
  o.steps = 3;
  o.seed = 7;
  if (tweak) tweak(o);
  cs::io::Diagnostics diag;
  EXPECT_TRUE(cs::generator::generate_cluster(dir.string(), o, diag));
  return dir;
}

// Runs the compare command; the output goes to `out`, its log to `out`.log.
int compare_64(const fs::path& a, const fs::path& b, const fs::path& out) {
  return run_command(std::string(CS_BINARY) + " compare " + a.string() + " " + b.string() + " -o " +
                         out.string() + " --quiet",
                     out.string() + ".log");
}

using cs::test::split_lines;

// The rows of regressions.csv flagged significant (the column before `where`: "rank 5", ...).
std::vector<std::string> significant_rows(const fs::path& out) {
  const auto reg = split_lines(read_file(out / "comparison_output" / "regressions.csv"));
  EXPECT_GE(reg.size(), 2u);
  if (!reg.empty()) {
    EXPECT_EQ(reg[0].rfind("what,key,base_us,comparison_us,diff_us,diff_ratio,significant", 0), 0u);
  }
  static const std::regex significant(",1,(rank|link|all) ");
  std::vector<std::string> rows;
  for (size_t i = 1; i < reg.size(); ++i)
    if (std::regex_search(reg[i], significant)) rows.push_back(reg[i]);
  return rows;
}

TEST(CompareRuns64, SlowRankIsTheTopRegression) {
  const fs::path base = cluster_64("base", nullptr);
  const fs::path slow = cluster_64("slow37", [](cs::generator::GeneratorOptions& o) {
    o.slow_ranks.push_back({37, 1.6});
  });
  const fs::path out = compare_runs_64_root() / "out_slow_rank";
  ASSERT_EQ(compare_64(base, slow, out), 0) << read_file(out.string() + ".log");
  const auto rows = significant_rows(out);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0].rfind("rank,rank 37,", 0), 0u) << rows[0];
  // Every significant row points at rank 37: no other rank is blamed.
  for (const auto& r : rows) EXPECT_NE(r.find(",1,rank 37,"), std::string::npos) << r;
  const std::string log = read_file(out.string() + ".log");
  EXPECT_NE(log.find("64 ranks compared"), std::string::npos) << log;
  EXPECT_NE(log.find("rank 37"), std::string::npos) << log;
}

TEST(CompareRuns64, SlowKernelIsTheTopRegression) {
  const fs::path base = cluster_64("base", nullptr);
  const fs::path slow = cluster_64("matmul50", [](cs::generator::GeneratorOptions& o) {
    o.slow_kernels.push_back({50, "MatMul", 3.0});
  });
  const fs::path out = compare_runs_64_root() / "out_slow_kernel";
  ASSERT_EQ(compare_64(base, slow, out), 0) << read_file(out.string() + ".log");
  const auto rows = significant_rows(out);
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(rows[0].rfind("rank,rank 50,", 0), 0u) << rows[0];
  // The top operator is a MatMul kernel on rank 50, and nothing else is blamed.
  size_t op = 0;
  while (op < rows.size() && rows[op].rfind("operator,", 0) != 0) ++op;
  ASSERT_LT(op, rows.size());
  EXPECT_EQ(rows[op].rfind("operator,MatMul", 0), 0u) << rows[op];
  for (const auto& r : rows) EXPECT_NE(r.find(",1,rank 50,"), std::string::npos) << r;
}

TEST(CompareRuns64, SameSeedTwiceHasNoSignificantRegression) {
  // Two separate generations with the same seed: the same job profiled twice.
  const fs::path a = cluster_64("base", nullptr);
  const fs::path b = cluster_64("base_again", nullptr);
  const fs::path out = compare_runs_64_root() / "out_same";
  ASSERT_EQ(compare_64(a, b, out), 0) << read_file(out.string() + ".log");
  for (const auto& r : significant_rows(out)) ADD_FAILURE() << "significant: " << r;
  EXPECT_NE(read_file(out.string() + ".log").find("no significant regression"), std::string::npos);
}

}  // namespace
