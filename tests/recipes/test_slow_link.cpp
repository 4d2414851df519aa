// The slow_link recipe.
// - has_z_score_outlier on values worked out by hand.
// - Golden: `cluster -m slow_link --export_type db` on `generate JOB --ranks 8 --tp 4 --pp 2
//   --steps 3 --slow-rank 5:1.5 --export-type db` writes exactly what msprof-analyze 8399c1cd
//   wrote for that job (tests/data/generated-db/tp4pp2s3_slow_link__db; tests/data/SOURCES.md),
//   and the same bytes under mpirun -np 1, 2 and 4; --top_num 0 is msprof-analyze's 15.
// - The query answered from the pages gives the same outputs as SQLite (CS_RECIPE_SCANS=off).
// - The text export writes no file (msprof-analyze's slow_link writes only db), and says so.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "msprof_analyze/recipes/slow_link/slow_link.h"
#include "recipes/recipe_cli_test_util.h"
#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;
using cs::recipes::slow_link::has_z_score_outlier;

namespace {

const fs::path& slow_link_scratch() {
  static const cs::test::ScratchDir dir("slow-link");
  return dir.path();
}

const fs::path& slow_link_job() {
  static const fs::path job = [] {
    const fs::path j = slow_link_scratch() / "tp4pp2s3";
    const int rc = cs::test::run_command(std::string(CS_BINARY) + " generate " + j.string() +
                                             " --ranks 8 --tp 4 --pp 2 --steps 3 --slow-rank "
                                             "5:1.5 --export-type db",
                                         (slow_link_scratch() / "generate.log").string());
    EXPECT_EQ(rc, 0) << cs::test::read_file(slow_link_scratch() / "generate.log");
    return j;
  }();
  return job;
}

TEST(SlowLinkRecipe, ZScore) {
  // Four values can never be 3 sigma out: the largest z-score of n values is (n-1)/sqrt(n).
  EXPECT_FALSE(has_z_score_outlier({1, 1, 1, 100}));
  EXPECT_FALSE(has_z_score_outlier({5, 5, 5}));  // std 0
  // Eleven 10s and one 100: mean 17.5, std 24.87; 100 > 17.5 + 74.6.
  std::vector<double> v(11, 10.0);
  v.push_back(100);
  EXPECT_TRUE(has_z_score_outlier(v));
  v.back() = 12;  // mean 10.17, std 0.553: 12 > 10.17 + 1.66 = 11.82
  EXPECT_TRUE(has_z_score_outlier(v));
  v.back() = 9;  // mean 9.92, std 0.276: 9 > 9.92 - 0.83 = 9.09? no, 9 < 9.09 (low side)
  EXPECT_TRUE(has_z_score_outlier(v));
  v.assign(6, 10.0);
  v.push_back(100);  // 7 values: at most 6 / sqrt(7) = 2.27 sigma
  EXPECT_FALSE(has_z_score_outlier(v));
}

std::string run_slow_link(const std::string& launcher, const std::string& name,
                          const std::string& args) {
  const fs::path out = slow_link_scratch() / name;
  const int rc =
      cs::test::run_command(launcher + CS_BINARY + " cluster -d " + slow_link_job().string() +
                                " -o " + out.string() + " -m slow_link " + args,
                            out.string() + ".log");
  EXPECT_EQ(rc, 0) << cs::test::read_file(out.string() + ".log");
  return (out / "cluster_analysis_output").string();
}

TEST(SlowLinkRecipe, MatchesMsprofAnalyzeAtAnyProcessCount) {
  const fs::path ref = fs::path(CS_TEST_DATA) / "generated-db" / "tp4pp2s3_slow_link__db";
  const fs::path single = run_slow_link("", "nolauncher", "--export_type db");
  cs::test::expect_same_outputs(single, ref);
  const auto expected = cs::test::read_tree(single);
  for (int np : {1, 2, 4})
    EXPECT_TRUE(cs::test::read_tree(run_slow_link(cs::test::mpirun(np), "np" + std::to_string(np),
                                                  "--export_type db")) == expected)
        << "np=" << np;
  EXPECT_TRUE(cs::test::read_tree(run_slow_link("", "top0", "--export_type db --top_num 0")) ==
              expected);
}

// The per-rank query is answered from the pages (slow_link_scan.h) on every rank, with the same
// outputs as SQLite's answer (CS_RECIPE_SCANS=off).
TEST(SlowLinkRecipe, ScanGivesTheSqlOutputs) {
  cs::test::expect_scan_matches_sql(slow_link_job(), slow_link_scratch() / "scan", "slow_link",
                                    "db", {{"slow_link.communication_ops", 8}});
}

TEST(SlowLinkRecipe, TextExportWritesNothing) {
  const fs::path out = run_slow_link("", "text", "--export_type text");
  for (const auto& f : fs::recursive_directory_iterator(out))
    EXPECT_FALSE(f.is_regular_file() && f.path().filename() != ".clusterscope_written") << f.path();
  EXPECT_NE(cs::test::read_file(slow_link_scratch() / "text.log").find("--export_type db"),
            std::string::npos);
}

}  // namespace
