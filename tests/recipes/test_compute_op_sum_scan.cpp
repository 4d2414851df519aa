// msprof_analyze/recipes/compute_op_sum/compute_op_sum_scan.h: compute_op_sum's query read as table
// scans gives exactly what msprof-analyze's SQL gives on the same rows (equal starts, NULL starts
// and ids, missing strings, tasks outside the range), and the scan declines what it cannot
// reproduce.
#include "msprof_analyze/recipes/compute_op_sum/compute_op_sum_scan.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <random>
#include <string>

#include "msprof_analyze/recipes/compute_op_sum/compute_op_sum.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "recipes/recipe_test_util.h"
#include "recipes/scan_test_util.h"

namespace cs::recipes {
namespace {

// The profiler's schema for the tables compute_op_sum reads (as torch_npu writes them).
const char* kComputeOpSchema = CS_TEST_STRING_IDS_AND_TASK
    "CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER PRIMARY KEY,blockDim "
    "INTEGER,mixBlockDim INTEGER,taskType INTEGER,opType INTEGER,inputFormats INTEGER,"
    "inputDataTypes INTEGER,inputShapes INTEGER,outputFormats INTEGER,outputDataTypes INTEGER,"
    "outputShapes INTEGER,attrInfo INTEGER, waitNs INTEGER);";

const char* kTaskIndex = "CREATE INDEX TaskIndex ON TASK (startNs,globalTaskId);";

// Random rows on a small grid so starts and task ids tie; some NULL, some negative (outside the
// range), some string ids missing; a task id may have several TASK rows or none.
std::string random_compute_rows(unsigned seed, const char* index = kTaskIndex) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto maybe_null = [&](int v) {
    return pick(0, 7) == 0 ? std::string("NULL") : std::to_string(v);
  };
  std::string sql = std::string("BEGIN;") + kComputeOpSchema;
  for (int i = 1; i <= 6; ++i)
    if (pick(0, 5))
      sql += "INSERT INTO STRING_IDS VALUES (" + std::to_string(i) + ", 'S" + std::to_string(i) +
             "');";
  for (int g = 0; g < 15; ++g)
    if (pick(0, 2))
      sql +=
          "INSERT INTO COMPUTE_TASK_INFO (globalTaskId, name, opType, taskType, inputShapes) "
          "VALUES (" +
          std::to_string(g) + "," + maybe_null(pick(1, 7)) + "," + maybe_null(pick(1, 7)) + "," +
          maybe_null(pick(1, 7)) + "," + maybe_null(pick(1, 7)) + ");";
  const int tasks = pick(0, 40);
  for (int i = 0; i < tasks; ++i) {
    const int s = pick(-3, 20);
    sql += "INSERT INTO TASK (startNs, endNs, globalTaskId) VALUES (" + maybe_null(s) + "," +
           maybe_null(s + pick(-2, 9)) + "," + maybe_null(pick(0, 17)) + ");";
  }
  return sql + index + "COMMIT;";
}

TEST(ComputeOpSumScan, RowsEqualTheSqlOnRandomRows) {
  for (unsigned seed = 1; seed <= 150; ++seed) {
    ScratchProfilerDb t("cos-scan");
    t.exec(random_compute_rows(seed));
    io::Diagnostics diag;
    recipes::RankDb db(t.path, diag);
    ASSERT_TRUE(db.ok());
    frame::Frame want, got;
    ASSERT_TRUE(db.query(compute_op_sum::compute_op_sum_sql(), {0, kMaxNs}, want, "TASK", diag));
    ASSERT_TRUE(compute_op_sum::scan_compute_ops(
        db.database(), compute_op_sum::compute_op_sum_sql(), 0, kMaxNs, got))
        << "seed " << seed;
    expect_same_frame(got, want, seed);
  }
}

TEST(ComputeOpSumScan, DeclinesWhatItCannotReproduce) {
  auto declines = [](const std::string& rows, const char* what) {
    ScratchProfilerDb t("cos-decline");
    t.exec(rows);
    io::Diagnostics diag;
    recipes::RankDb db(t.path, diag);
    frame::Frame got;
    EXPECT_FALSE(compute_op_sum::scan_compute_ops(
        db.database(), compute_op_sum::compute_op_sum_sql(), 0, kMaxNs, got))
        << what;
  };
  declines(random_compute_rows(3, ""), "no TaskIndex: another plan");
  declines(random_compute_rows(3, "CREATE INDEX TaskIndex ON TASK (startNs, endNs);"),
           "TaskIndex on other keys");
  declines(random_compute_rows(3) +
               "INSERT INTO TASK (startNs, endNs, globalTaskId) VALUES (1, 2.5, 1);",
           "a real end");
  declines(random_compute_rows(3) +
               "INSERT INTO COMPUTE_TASK_INFO (globalTaskId) VALUES (99);"
               "INSERT INTO TASK (startNs, endNs, globalTaskId) VALUES (1, 4503599627370497, 99);",
           "a duration round() may change");
}

}  // namespace
}  // namespace cs::recipes
