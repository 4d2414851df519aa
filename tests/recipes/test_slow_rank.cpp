// The slow_rank recipe.
// - judge_slow_ranks on values worked out by hand: Dixon's test (a gap ratio above and below the
//   99.5% table value, too few distinct values), and the 3-sigma rule past 100 ranks, including
//   its vote for the shortest op when only the longest is an outlier.
// - Golden: `cluster -m slow_rank` on `generate JOB --ranks 8 --tp 4 --pp 2 --steps 3
//   --slow-rank 5:1.5 --export-type db` writes exactly what msprof-analyze 8399c1cd wrote for that
//   job (tests/data/generated-db/tp4pp2s3_slow_rank__{text,db}; tests/data/SOURCES.md), and the
//   same bytes under mpirun -np 1, 2 and 4.
// - The query answered from the pages gives the same outputs as SQLite (CS_RECIPE_SCANS=off).
// - The real two-rank job has no slow rank (two values per op): nothing written, as
//   msprof-analyze writes nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "msprof_analyze/recipes/slow_rank/slow_rank.h"
#include "recipes/recipe_cli_test_util.h"
#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;
using cs::recipes::slow_rank::judge_slow_ranks;

namespace {

const fs::path& slow_rank_scratch() {
  static const cs::test::ScratchDir dir("slow-rank");
  return dir.path();
}

const fs::path& slow_rank_job() {
  static const fs::path job = [] {
    const fs::path j = slow_rank_scratch() / "tp4pp2s3";
    const int rc = cs::test::run_command(std::string(CS_BINARY) + " generate " + j.string() +
                                             " --ranks 8 --tp 4 --pp 2 --steps 3 --slow-rank "
                                             "5:1.5 --export-type db",
                                         (slow_rank_scratch() / "generate.log").string());
    EXPECT_EQ(rc, 0) << cs::test::read_file(slow_rank_scratch() / "generate.log");
    return j;
  }();
  return job;
}

TEST(SlowRankRecipe, DixonTest) {
  // n = 4: (s1 - s0) / (s3 - s0) against 0.920.
  EXPECT_EQ(judge_slow_ranks({10.5, 1, 11, 10.8}), (std::vector<size_t>{1}));  // 9.5/10 = 0.95
  EXPECT_TRUE(judge_slow_ranks({10, 1, 11, 10.5}).empty());                    // 9/10 = 0.9
  EXPECT_TRUE(judge_slow_ranks({10, 1, 11, 10}).empty());  // 3 distinct values: no test
  EXPECT_TRUE(judge_slow_ranks({1, 100}).empty());         // fewer than 3 values
  // n = 11: (s2 - s0) / (s9 - s0) against 0.707.
  std::vector<double> t = {10, 10.1, 10.2, 10.3, 1, 10.4, 10.5, 1.5, 10.6, 10.7, 10.8};
  EXPECT_EQ(judge_slow_ranks(t), (std::vector<size_t>{4}));  // (10 - 1) / (10.7 - 1) = 0.93
  t[0] = 2;                                                  // s2 = 2: 1 / 9.7 = 0.10
  EXPECT_TRUE(judge_slow_ranks(t).empty());
}

TEST(SlowRankRecipe, ThreeSigmaPastHundredRanks) {
  // 100 x 10 and one 0: mean 9.80, std 0.995, 0 < 9.80 - 2.98.
  std::vector<double> t(101, 10.0);
  t[7] = 0;
  EXPECT_EQ(judge_slow_ranks(t), (std::vector<size_t>{7}));
  // 100 x 10 and one 100: nothing below mean - 3 sigma, but 100 > 10.89 + 26.7, so the first
  // shortest op (index 0) is voted.
  t.assign(101, 10.0);
  t[3] = 100;
  EXPECT_EQ(judge_slow_ranks(t), (std::vector<size_t>{0}));
  t.assign(101, 10.0);
  EXPECT_TRUE(judge_slow_ranks(t).empty());
}

class SlowRankRecipeGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(SlowRankRecipeGolden, MatchesMsprofAnalyzeAtAnyProcessCount) {
  const std::string type = GetParam();
  const fs::path ref = fs::path(CS_TEST_DATA) / "generated-db" / ("tp4pp2s3_slow_rank__" + type);
  auto run = [&](const std::string& launcher, const std::string& name) {
    const fs::path out = slow_rank_scratch() / (type + "-" + name);
    const int rc =
        cs::test::run_command(launcher + CS_BINARY + " cluster -q -d " + slow_rank_job().string() +
                                  " -o " + out.string() + " -m slow_rank --export_type " + type,
                              out.string() + ".log");
    EXPECT_EQ(rc, 0) << cs::test::read_file(out.string() + ".log");
    return out / "cluster_analysis_output";
  };
  const fs::path single = run("", "nolauncher");
  cs::test::expect_same_outputs(single, ref);
  const auto expected = cs::test::read_tree(single);
  for (int np : {1, 2, 4}) {
    const auto got = cs::test::read_tree(run(cs::test::mpirun(np), "np" + std::to_string(np)));
    EXPECT_TRUE(got == expected) << "np=" << np;
  }
}

INSTANTIATE_TEST_SUITE_P(Export, SlowRankRecipeGolden, ::testing::Values("text", "db"));

// The per-rank query is answered from the pages (slow_rank_scan.h) on every rank of the generated
// job, and the outputs are the same bytes as with the scans off (CS_RECIPE_SCANS=off: SQLite).
TEST(SlowRankRecipe, ScanGivesTheSqlOutputs) {
  cs::test::expect_scan_matches_sql(slow_rank_job(), slow_rank_scratch() / "scan", "slow_rank",
                                    "db", {{"slow_rank.communication_ops", 8}});
}

TEST(SlowRankRecipe, RealJobHasNoSlowRank) {
  const fs::path out = slow_rank_scratch() / "real";
  const fs::path input = fs::path(CS_TEST_DATA) / "ascend-real" / "db_level1";
  const int rc =
      cs::test::run_command(std::string(CS_BINARY) + " cluster -q -d " + input.string() + " -o " +
                                out.string() + " -m slow_rank --export_type text",
                            out.string() + ".log");
  EXPECT_EQ(rc, 0) << cs::test::read_file(out.string() + ".log");
  EXPECT_FALSE(fs::exists(out / "cluster_analysis_output" / "SlowRankAnalysis" / "rank_stats.csv"));
}

}  // namespace
