// The ep_load_balance recipe.
// - routed_tokens on shapes worked out by hand: the first dimensions of all inputs but the last
//   two, empty parts dropped, quotes stripped, nothing for one part or a dimension that is not a
//   whole number (Python's int(): spaces, a sign and digit underscores accepted).
// - Golden: `cluster -m ep_load_balance --export_type db` on `generate JOB --ranks 16 --tp 2 --pp 2
//   --ep 2 --steps 2 --export-type db` (GroupedMatmul kernels, "exp" groups) writes exactly what
//   msprof-analyze 8399c1cd wrote for that job (tests/data/generated-db/
//   tp2pp2ep2s2_ep_load_balance__db; tests/data/SOURCES.md), and the same bytes under mpirun -np
//   1, 2 and 4; the generated tokens are checked against the generator's own routing.
// - The kernels' shapes read from the pages give the same outputs as SQLite (CS_RECIPE_SCANS=off).
// - The text export writes nothing, as msprof-analyze.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "msprof_analyze/recipes/ep_load_balance/ep_load_balance.h"
#include "recipes/recipe_cli_test_util.h"
#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;
using cs::recipes::ep_load_balance::routed_tokens;

namespace {

const fs::path& ep_balance_scratch() {
  static const cs::test::ScratchDir dir("ep-load-balance");
  return dir.path();
}

const fs::path& ep_balance_job() {
  static const fs::path job = [] {
    const fs::path j = ep_balance_scratch() / "tp2pp2ep2s2";
    const int rc =
        cs::test::run_command(std::string(CS_BINARY) + " generate " + j.string() +
                                  " --ranks 16 --tp 2 --pp 2 --ep 2 --steps 2 --export-type db",
                              (ep_balance_scratch() / "generate.log").string());
    EXPECT_EQ(rc, 0) << cs::test::read_file(ep_balance_scratch() / "generate.log");
    return j;
  }();
  return job;
}

fs::path run_ep_balance(const std::string& launcher, const std::string& name,
                        const std::string& type) {
  const fs::path out = ep_balance_scratch() / name;
  const int rc =
      cs::test::run_command(launcher + CS_BINARY + " cluster -q -d " + ep_balance_job().string() +
                                " -o " + out.string() + " -m ep_load_balance --export_type " + type,
                            out.string() + ".log");
  EXPECT_EQ(rc, 0) << cs::test::read_file(out.string() + ".log");
  return out / "cluster_analysis_output";
}

TEST(EpLoadBalance, RoutedTokensByHand) {
  EXPECT_EQ(routed_tokens("\"2048,4096;8,4096,1408;8\""), 2048);
  EXPECT_EQ(routed_tokens("10,4;20,4;8,4,4;8"), 30);  // two inputs before the last two
  EXPECT_EQ(routed_tokens("10,4;;;8,4,4;8;"), 10);    // empty parts dropped
  EXPECT_EQ(routed_tokens("5;6"), 0);                 // two parts: none summed
  EXPECT_EQ(routed_tokens(" +1_000 ,4;8;8"), 1000);   // Python's int()
  EXPECT_FALSE(routed_tokens("2048,4096"));           // one part
  EXPECT_FALSE(routed_tokens("x,4;8;8"));
  EXPECT_FALSE(routed_tokens("1__0;8;8"));
  EXPECT_FALSE(routed_tokens(""));
}

TEST(EpLoadBalance, MatchesMsprofAnalyzeAtAnyProcessCount) {
  const fs::path ref = fs::path(CS_TEST_DATA) / "generated-db" / "tp2pp2ep2s2_ep_load_balance__db";
  const fs::path single = run_ep_balance("", "nolauncher", "db");
  cs::test::expect_same_outputs(single, ref);
  const auto expected = cs::test::read_tree(single);
  for (int np : {1, 2, 4})
    EXPECT_TRUE(cs::test::read_tree(run_ep_balance(cs::test::mpirun(np), "np" + std::to_string(np),
                                                   "db")) == expected)
        << "np=" << np;
  // Every rank has a sum, and each group's spread is its largest minus its smallest sum.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((single / "cluster_analysis.db").c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT count(*), (SELECT count(*) FROM TopEPTokensInfo t WHERE "
                               "tokensDiff = (SELECT max(inputShapesSummary) - "
                               "min(inputShapesSummary) FROM EPTokensSummary s WHERE s.epRanks = "
                               "t.epRanks)) FROM EPTokensSummary",
                               -1, &st, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), 16);
  EXPECT_EQ(sqlite3_column_int(st, 1), 8);  // 16 ranks in groups of 2
  sqlite3_finalize(st);
  sqlite3_close(db);
}

// The kernels' shapes are read from the pages (ep_load_balance_scan.h) on every rank, with the
// same outputs as SQLite's answer (CS_RECIPE_SCANS=off).
TEST(EpLoadBalance, ScanGivesTheSqlOutputs) {
  cs::test::expect_scan_matches_sql(ep_balance_job(), ep_balance_scratch() / "scan",
                                    "ep_load_balance", "db", {{"ep_load_balance.shapes", 16}});
}

TEST(EpLoadBalance, TextExportWritesNothing) {
  const fs::path out = run_ep_balance("", "text", "text");
  for (const auto& f : fs::recursive_directory_iterator(out))
    EXPECT_FALSE(f.is_regular_file() && f.path().filename() != ".clusterscope_written") << f.path();
}

}  // namespace
