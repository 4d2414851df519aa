// msprof_analyze/recipes/mstx_sum/mstx_range_scan.h: mstx_sum's range query read as table scans
// gives exactly what msprof-analyze's SQL gives on the same rows (several device tasks per range,
// equal starts among ranges and among their tasks, NULLs, ranges without a task or message, marks
// and untied ranges left out), and the scan declines what it cannot reproduce.
#include "msprof_analyze/recipes/mstx_sum/mstx_range_scan.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <random>
#include <string>

#include "msprof_analyze/recipes/mstx_sum/mstx_annotations.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "recipes/recipe_test_util.h"
#include "recipes/scan_test_util.h"

namespace cs::recipes {
namespace {

// The profiler's schema for the tables the range query reads (as torch_npu writes them).
const char* kMstxRangeSchema = CS_TEST_STRING_IDS_AND_TASK
    "CREATE INDEX TaskIndex ON TASK (startNs,globalTaskId);" CS_TEST_MSTX_EVENTS;

// Random events and tasks on a small grid so starts tie and connection ids repeat.
std::string random_range_rows(unsigned seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto maybe_null = [&](const std::string& v) { return pick(0, 7) == 0 ? "NULL" : v; };
  std::string sql = std::string("BEGIN;") + kMstxRangeSchema;
  for (int i = 1; i <= 5; ++i)
    if (pick(0, 4))
      sql += "INSERT INTO STRING_IDS VALUES (" + std::to_string(i) + ", 'm" + std::to_string(i) +
             "');";
  const int events = pick(0, 25);
  for (int i = 0; i < events; ++i) {
    const int s = pick(-2, 12);
    const std::string conn = pick(0, 6) == 0 ? "4294967295" : std::to_string(pick(1, 8));
    sql +=
        "INSERT INTO MSTX_EVENTS (startNs, endNs, eventType, message, globalTid, "
        "connectionId) VALUES (" +
        maybe_null(std::to_string(s)) + "," + maybe_null(std::to_string(s + pick(0, 5))) + "," +
        maybe_null(std::to_string(pick(2, 3))) + "," + maybe_null(std::to_string(pick(1, 6))) +
        "," + std::to_string(pick(1, 2)) + "," + maybe_null(conn) + ");";
  }
  const int tasks = pick(0, 30);
  for (int i = 0; i < tasks; ++i) {
    const int s = pick(0, 6);
    sql += "INSERT INTO TASK (startNs, endNs, connectionId, globalTaskId) VALUES (" +
           maybe_null(std::to_string(s)) + "," + maybe_null(std::to_string(s + pick(0, 3))) + "," +
           maybe_null(std::to_string(pick(1, 9))) + "," + std::to_string(i) + ");";
  }
  return sql + "COMMIT;";
}

TEST(MstxRangeScan, RowsEqualTheSqlOnRandomRows) {
  for (unsigned seed = 1; seed <= 150; ++seed) {
    ScratchProfilerDb t("mstx-scan");
    t.exec(random_range_rows(seed));
    io::Diagnostics diag;
    recipes::RankDb db(t.path, diag);
    ASSERT_TRUE(db.ok());
    frame::Frame want, got;
    ASSERT_TRUE(db.query(mstx_sum::mstx_range_sql(true), {0, kMaxNs}, want, "MSTX_EVENTS", diag));
    ASSERT_TRUE(
        mstx_sum::scan_mstx_ranges(db.database(), mstx_sum::mstx_range_sql(true), 0, kMaxNs, got))
        << "seed " << seed;
    expect_same_frame(got, want, seed);
  }
}

TEST(MstxRangeScan, DeclinesWhatItCannotReproduce) {
  auto declines = [](const std::string& rows, const std::string& sql, const char* what) {
    ScratchProfilerDb t("mstx-decline");
    t.exec(rows);
    io::Diagnostics diag;
    recipes::RankDb db(t.path, diag);
    frame::Frame got;
    EXPECT_FALSE(mstx_sum::scan_mstx_ranges(db.database(), sql, 0, kMaxNs, got)) << what;
  };
  declines(random_range_rows(4), mstx_sum::mstx_range_sql(false),
           "the query without TASK: another plan");
  declines(random_range_rows(4) + "CREATE INDEX TaskConn ON TASK (connectionId);",
           mstx_sum::mstx_range_sql(true), "an index SQLite uses instead of the automatic one");
  declines(
      random_range_rows(4) + "INSERT INTO TASK (startNs, endNs, connectionId) VALUES (1.5, 2, 3);",
      mstx_sum::mstx_range_sql(true), "a real task start");
  declines(random_range_rows(4) +
               "INSERT INTO MSTX_EVENTS (startNs, endNs, eventType, connectionId) VALUES "
               "('x', 2, 2, 3);",
           mstx_sum::mstx_range_sql(true), "a text event start");
}

}  // namespace
}  // namespace cs::recipes
