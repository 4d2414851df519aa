// End-to-end run vs run: `clusterscope compare RUN1 RUN2` on two generated cluster directories,
// with one process and under mpirun -np 2 (same files).
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>
#include <vector>

#include "cli/cli_test_util.h"
#include "generator/generator.h"

namespace {

namespace fs = std::filesystem;
using cs::test::read_file;
using cs::test::run_command;

// Removed when the test program exits.
const fs::path& compare_runs_root() {
  static const cs::test::ScratchDir dir("compare-runs");
  return dir.path();
}

// Generates (once) a 16-rank cluster with the generator library.
fs::path cluster(const std::string& name, void (*tweak)(cs::generator::GeneratorOptions&)) {
  const fs::path dir = compare_runs_root() / name;
  if (fs::exists(dir)) return dir;
  cs::generator::GeneratorOptions o;
  o.ranks = 16;
  o.tp = 4;
  o.pp = 2;
  o.steps = 3;
  if (tweak) tweak(o);
  cs::io::Diagnostics diag;
  EXPECT_TRUE(cs::generator::generate_cluster(dir.string(), o, diag));
  return dir;
}

fs::path base_run() {
  return cluster("base", nullptr);
}
fs::path slow_run() {
  return cluster("slow5", [](cs::generator::GeneratorOptions& o) {
    o.slow_ranks.push_back({5, 1.6});
  });
}

int compare(const fs::path& a, const fs::path& b, const fs::path& out,
            const std::string& pre = {}) {
  return run_command(pre + CS_BINARY + std::string(" compare ") + a.string() + " " + b.string() +
                         " -o " + out.string() + " --quiet",
                     (out.string() + ".log"));
}

using cs::test::split_lines;

TEST(CompareRuns, SlowRankIsTheTopRegression) {
  const fs::path out = compare_runs_root() / "out1";
  ASSERT_EQ(compare(base_run(), slow_run(), out), 0) << read_file(out.string() + ".log");
  const fs::path dir = out / "comparison_output";
  for (const char* f : {"rank_diff.csv", "regressions.csv", "overall_metrics.csv",
                        "kernel_compare.csv", "comparison.h5"})
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  const auto reg = split_lines(read_file(dir / "regressions.csv"));
  ASSERT_GE(reg.size(), 2u);
  EXPECT_EQ(reg[0].rfind("what,key,base_us,comparison_us,diff_us,diff_ratio,significant", 0), 0u);
  EXPECT_EQ(reg[1].rfind("rank,rank 5,", 0), 0u) << reg[1];
  // The generated trace_view.json files give the single-rank tables real content.
  const auto overall = split_lines(read_file(dir / "overall_metrics.csv"));
  ASSERT_GE(overall.size(), 2u);
  EXPECT_EQ(overall[1].rfind("Computing Time,", 0), 0u) << overall[1];
  EXPECT_GT(std::stod(overall[1].substr(overall[1].find(',') + 1)), 1.0) << overall[1];
  const auto diff = split_lines(read_file(dir / "rank_diff.csv"));
  ASSERT_GE(diff.size(), 2u);
  EXPECT_EQ(diff[0], "rank,step,metric,base_us,comparison_us,diff_us,diff_ratio");
  const std::string log = read_file(out.string() + ".log");
  EXPECT_NE(log.find("rank 5"), std::string::npos) << log;
  // Both tables are in comparison.h5.
  const std::string py =
      "/usr/bin/python3 -c \"import h5py,sys; f=h5py.File(sys.argv[1]); "
      "sys.exit(0 if 'rank_diff' in f and 'regressions' in f else 1)\" ";
  EXPECT_EQ(run_command(py + (dir / "comparison.h5").string()), 0);
}

TEST(CompareRuns, SameRunHasNoSignificantRegression) {
  const fs::path out = compare_runs_root() / "out_same";
  ASSERT_EQ(compare(base_run(), base_run(), out), 0) << read_file(out.string() + ".log");
  const auto reg = split_lines(read_file(out / "comparison_output" / "regressions.csv"));
  ASSERT_GE(reg.size(), 2u);
  // significant is the column before `where` ("rank 5", "link 0-1", "all 16 ranks").
  const std::regex significant(",1,(rank|link|all) ");
  for (size_t i = 1; i < reg.size(); ++i)
    EXPECT_FALSE(std::regex_search(reg[i], significant)) << reg[i];
  EXPECT_NE(read_file(out.string() + ".log").find("no significant regression"), std::string::npos);
}

TEST(CompareRuns, MpiTwoProcessesWriteTheSameFiles) {
  const fs::path one = compare_runs_root() / "np1", two = compare_runs_root() / "np2";
  ASSERT_EQ(compare(base_run(), slow_run(), one), 0) << read_file(one.string() + ".log");
  ASSERT_EQ(compare(base_run(), slow_run(), two, cs::test::mpirun(2)), 0)
      << read_file(two.string() + ".log");
  for (const char* f :
       {"rank_diff.csv", "regressions.csv", "overall_metrics.csv", "communication_compare.csv"}) {
    const auto a = read_file(one / "comparison_output" / f);
    EXPECT_FALSE(a.empty()) << f;
    EXPECT_EQ(a, read_file(two / "comparison_output" / f)) << f;
  }
}

TEST(CompareRuns, ClustersWithoutTimelineGiveRunTablesOnly) {
  const auto a = cluster("notl_a", [](cs::generator::GeneratorOptions& o) { o.trace_view = 0; });
  const auto b = cluster("notl_b", [](cs::generator::GeneratorOptions& o) {
    o.trace_view = 0;
    o.slow_kernels.push_back({3, "MatMul", 3.0});
  });
  const fs::path out = compare_runs_root() / "out_notl";
  ASSERT_EQ(compare(a, b, out), 0) << read_file(out.string() + ".log");
  const fs::path dir = out / "comparison_output";
  EXPECT_TRUE(fs::exists(dir / "regressions.csv"));
  EXPECT_FALSE(fs::exists(dir / "overall_metrics.csv"));
  const auto reg = split_lines(read_file(dir / "regressions.csv"));
  ASSERT_GE(reg.size(), 2u);
  EXPECT_NE(reg[1].find(",1,rank 3,"), std::string::npos) << reg[1];
}

}  // namespace
