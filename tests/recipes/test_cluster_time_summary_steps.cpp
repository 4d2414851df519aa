// cluster_time_summary reads each rank's StepTraceTime steps as integers (pandas' astype(int)).
// A step column declared REAL can hold a number no integer holds (1e300, infinity): that rank is
// refused with a message naming its analysis.db and the step, the other ranks are summarised, and
// nothing converts the number to int64 (undefined behaviour, which the sanitizer pass reports).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;
using cs::test::read_file;
using cs::test::run_command;

namespace {

// Replaces `analysis_db`'s StepTraceTime by one whose step column is REAL, holding `step`.
void real_step_table(const fs::path& analysis_db, const std::string& step) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(analysis_db.c_str(), &db), SQLITE_OK);
  const std::string sql =
      "DROP TABLE StepTraceTime; CREATE TABLE StepTraceTime (step REAL, computing NUMERIC, "
      "communication_not_overlapped NUMERIC, overlapped NUMERIC, communication NUMERIC, free "
      "NUMERIC, stage NUMERIC, bubble NUMERIC, communication_not_overlapped_and_exclude_receive "
      "NUMERIC, preparing NUMERIC); INSERT INTO StepTraceTime VALUES (" +
      step + ", 10, 2, 1, 3, 4, 0, 0, 2, 0);";
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

TEST(ClusterTimeSummarySteps, StepBeyondAnIntegerRefusesThatRankOnly) {
  for (const std::string step : {"1e300", "9e999"}) {  // 9e999: SQLite's infinity
    const fs::path dir = cs::test::temp_dir("cts-steps-" + step);
    const fs::path job = dir / "job";
    for (int r = 0; r < 2; ++r) cs::test::copy_real_db_rank(job, r);
    const fs::path bad =
        job / "node_101_1736410538_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "analysis.db";
    real_step_table(bad, step);
    const fs::path out = dir / "out";
    const int rc = run_command(std::string(CS_BINARY) + " cluster -d " + job.string() + " -o " +
                                   out.string() + " -m cluster_time_summary --export_type db",
                               out.string() + ".log");
    const std::string log = read_file(out.string() + ".log");
    EXPECT_EQ(rc, 3) << log;  // partial: one rank of two summarised
    EXPECT_NE(log.find(bad.string()), std::string::npos) << log;
    EXPECT_NE(log.find(step == "1e300" ? "step 1e+300 is not a step number"
                                       : "step Infinity is not a step number"),
              std::string::npos)
        << log;
    EXPECT_TRUE(fs::exists(out / "cluster_analysis_output" / "cluster_analysis.db")) << log;
  }
}

}  // namespace
