// The mstx_sum recipe.
// - Annotations read from a hand-made database: mark pairs (latest open start), unmatched marks,
//   host-only ranges left out, a nested range named "outer::inner", a range without its device
//   task (NaN), steps by host start, repeated names numbered.
// - Golden: `cluster -m mstx_sum` on `generate JOB --ranks 8 --tp 4 --pp 2 --steps 3
//   --export-type db` writes exactly what msprof-analyze 8399c1cd wrote for that job
//   (tests/data/generated-db/tp4pp2s3_mstx_sum__{text,db}; tests/data/SOURCES.md), and the same
//   bytes under mpirun -np 1, 2 and 4.
// - A job without MSTX_EVENTS: exit 1, the missing table said once (not once per rank), and what
//   to do.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "msprof_analyze/recipes/mstx_sum/mstx_annotations.h"
#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;

namespace {

const fs::path& mstx_sum_scratch() {
  static const cs::test::ScratchDir dir("mstx-sum");
  return dir.path();
}

// The generated job the golden outputs were made from.
const fs::path& mstx_sum_job() {
  static const fs::path job = [] {
    const fs::path j = mstx_sum_scratch() / "tp4pp2s3";
    const int rc = cs::test::run_command(std::string(CS_BINARY) + " generate " + j.string() +
                                             " --ranks 8 --tp 4 --pp 2 --steps 3 --export-type db",
                                         (mstx_sum_scratch() / "generate.log").string());
    EXPECT_EQ(rc, 0) << cs::test::read_file(mstx_sum_scratch() / "generate.log");
    return j;
  }();
  return job;
}

void exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
}

TEST(MstxAnnotations, MarksRangesStepsAndNames) {
  const fs::path path = mstx_sum_scratch() / "hand.db";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  exec(db,
       "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT);"
       "INSERT INTO STRING_IDS VALUES (1,'a_start'),(2,'a_stop'),(3,'b_stop'),(4,'c_start'),"
       "(5,'outer'),(6,'inner'),(7,'host only'),(8,'a');"
       "CREATE TABLE MSTX_EVENTS (startNs INTEGER, endNs INTEGER, eventType INTEGER, rangeId "
       "INTEGER, category INTEGER, message INTEGER, globalTid INTEGER, endGlobalTid INTEGER, "
       "domainId INTEGER, connectionId INTEGER, depth INTEGER);"
       // marks on thread 1: a_start@100, a_start@150, a_stop@200 (pairs with 150: 50 ns),
       // a_stop@300 (pairs with 100: 200 ns), c_start@400 (never stopped); b_stop@50 on thread 2
       "INSERT INTO MSTX_EVENTS VALUES (100,100,3,0,0,1,1,1,0,11,0),(150,150,3,0,0,1,1,1,0,12,0),"
       "(200,200,3,0,0,2,1,1,0,13,0),(300,300,3,0,0,2,1,1,0,14,0),(400,400,3,0,0,4,1,1,0,15,0),"
       "(50,50,3,0,0,3,2,2,0,16,0);"
       // ranges: outer [1000, 2000] on task 7, inner [1200, 1500] whose task is missing, a
       // host-only range, and a second range named "a" in step 1 (after the marks' "a"s)
       "INSERT INTO MSTX_EVENTS VALUES (1000,2000,2,1,0,5,1,1,0,7,0),(1200,1500,2,2,0,6,1,1,0,8,0),"
       "(1100,1900,2,3,0,7,1,1,0,4294967295,0),(500,600,2,4,0,8,1,1,0,9,0);"
       "CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, connectionId INTEGER);"
       "INSERT INTO TASK VALUES (1100,1900,7),(510,530,9);"
       "CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);"
       "INSERT INTO STEP_TIME VALUES (1,0,999),(2,1000,5000);");
  sqlite3_close(db);

  cs::io::Diagnostics diag;
  cs::recipes::RankDb rank(path.string(), diag);
  std::vector<cs::recipes::mstx_sum::MstxAnnotation> got;
  ASSERT_TRUE(cs::recipes::mstx_sum::read_mstx_annotations(rank, got, diag));
  ASSERT_EQ(got.size(), 5u);
  // Marks as their stops come (framework and device durations 0, as msprof-analyze reads them),
  // then ranges by host start; the three "a"s of step 1 numbered in that order.
  EXPECT_EQ(got[0].name, "a_0");
  EXPECT_EQ(got[0].cann_ns, 50);
  EXPECT_EQ(got[1].name, "a_1");
  EXPECT_EQ(got[1].cann_ns, 200);
  for (int i : {0, 1}) {
    EXPECT_EQ(got[i].framework_ns, 0);
    EXPECT_EQ(got[i].device_ns, 0);
    EXPECT_EQ(got[i].step_id, 1);
  }
  EXPECT_EQ(got[2].name, "a_2");
  EXPECT_EQ(got[2].cann_ns, 100);
  EXPECT_EQ(got[2].device_ns, 20);
  EXPECT_EQ(got[3].name, "outer");
  EXPECT_EQ(got[3].cann_ns, 1000);
  EXPECT_EQ(got[3].device_ns, 800);
  EXPECT_EQ(got[3].step_id, 2);
  EXPECT_EQ(got[4].name, "outer::inner");
  EXPECT_EQ(got[4].cann_ns, 300);
  EXPECT_TRUE(std::isnan(got[4].device_ns));
  EXPECT_EQ(got[4].step_id, 2);
  // One warning lists the marks without a partner in row order (b_stop@50, c_start@400).
  ASSERT_EQ(diag.items().size(), 1u);
  EXPECT_NE(diag.items()[0].what.find("without a partner: b_stop,c_start"), std::string::npos)
      << diag.items()[0].what;
}

class MstxSumGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(MstxSumGolden, MatchesMsprofAnalyzeAtAnyProcessCount) {
  const std::string type = GetParam();
  const fs::path ref = fs::path(CS_TEST_DATA) / "generated-db" / ("tp4pp2s3_mstx_sum__" + type);
  auto run = [&](const std::string& launcher, const std::string& name) {
    const fs::path out = mstx_sum_scratch() / (type + "-" + name);
    const int rc =
        cs::test::run_command(launcher + CS_BINARY + " cluster -q -d " + mstx_sum_job().string() +
                                  " -o " + out.string() + " -m mstx_sum --export_type " + type,
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

INSTANTIATE_TEST_SUITE_P(Export, MstxSumGolden, ::testing::Values("text", "db"));

TEST(MstxSum, JobWithoutMstxSaysSoOnce) {
  const fs::path out = mstx_sum_scratch() / "no-mstx";
  const fs::path log = mstx_sum_scratch() / "no-mstx.log";
  const fs::path input = fs::path(CS_TEST_DATA) / "ascend-real" / "db_level1";
  const int rc = cs::test::run_command(std::string(CS_BINARY) + " cluster -d " + input.string() +
                                           " -o " + out.string() + " -m mstx_sum",
                                       log.string());
  const std::string text = cs::test::read_file(log);
  EXPECT_EQ(rc, 1) << text;
  EXPECT_EQ(cs::test::lines_with(text, "no table MSTX_EVENTS"), 1u) << text;
  EXPECT_NE(text.find("and 1 more file:"), std::string::npos) << text;
  EXPECT_NE(text.find("annotate the training script"), std::string::npos) << text;
  EXPECT_FALSE(fs::exists(out / "cluster_analysis_output" / "MstxSum")) << text;
}

}  // namespace
