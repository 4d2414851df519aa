// msprof_analyze/recipes/mstx_sum/mstx_marks_scan.h: mstx_sum's mark and step queries read as table
// scans give exactly what msprof-analyze's SQL gives on the same rows (equal and NULL starts, marks
// outside the range or of another type, messages missing or NULL), and the scans decline what they
// cannot reproduce.
#include "msprof_analyze/recipes/mstx_sum/mstx_marks_scan.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "msprof_analyze/recipes/mstx_sum/mstx_annotations.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "recipes/recipe_test_util.h"
#include "recipes/scan_test_util.h"

namespace cs::recipes {
namespace {

// The profiler's schema for the tables the two queries read (as torch_npu writes them).
const char* kMstxMarksSchema =
    "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);"
    "CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);" CS_TEST_MSTX_EVENTS;

// Random events and steps on a small grid so starts tie.
std::string random_mark_rows(unsigned seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto maybe_null = [&](const std::string& v) { return pick(0, 7) == 0 ? "NULL" : v; };
  std::string sql = std::string("BEGIN;") + kMstxMarksSchema;
  for (int i = 1; i <= 5; ++i)
    if (pick(0, 4))
      sql += "INSERT INTO STRING_IDS VALUES (" + std::to_string(i) + ", 'm" + std::to_string(i) +
             "');";
  const int events = pick(0, 30);
  for (int i = 0; i < events; ++i) {
    const int s = pick(-2, 12);
    sql += "INSERT INTO MSTX_EVENTS (startNs, endNs, eventType, message, globalTid) VALUES (" +
           maybe_null(std::to_string(s)) + "," + maybe_null(std::to_string(s + pick(0, 5))) + "," +
           maybe_null(std::to_string(pick(2, 3))) + "," + maybe_null(std::to_string(pick(1, 6))) +
           "," + maybe_null(std::to_string(pick(1, 2))) + ");";
  }
  const int steps = pick(0, 8);
  for (int i = 0; i < steps; ++i)
    sql += "INSERT INTO STEP_TIME VALUES (" + maybe_null(std::to_string(i)) + "," +
           maybe_null(std::to_string(pick(0, 4) * 10)) + "," +
           maybe_null(std::to_string(pick(0, 60))) + ");";
  return sql + "COMMIT;";
}

TEST(MstxMarksScan, RowsEqualTheSqlOnRandomRows) {
  for (unsigned seed = 1; seed <= 150; ++seed) {
    ScratchProfilerDb t("mstx-marks");
    t.exec(random_mark_rows(seed));
    io::Diagnostics diag;
    recipes::RankDb db(t.path, diag);
    ASSERT_TRUE(db.ok());
    frame::Frame want, got;
    ASSERT_TRUE(db.query(mstx_sum::mstx_mark_sql(), {0, kMaxNs}, want, "MSTX_EVENTS", diag));
    ASSERT_TRUE(mstx_sum::scan_mstx_marks(db.database(), mstx_sum::mstx_mark_sql(), 0, kMaxNs, got))
        << "seed " << seed;
    expect_same_frame(got, want, seed);
    frame::Frame want_steps, got_steps;
    ASSERT_TRUE(db.query(mstx_sum::mstx_step_sql(), {}, want_steps, "STEP_TIME", diag));
    ASSERT_TRUE(mstx_sum::scan_step_time(db.database(), mstx_sum::mstx_step_sql(), got_steps))
        << "seed " << seed;
    expect_same_frame(got_steps, want_steps, seed);
  }
}

TEST(MstxMarksScan, DeclinesWhatItCannotReproduce) {
  auto declines = [](const std::string& rows, const char* what) {
    ScratchProfilerDb t("mstx-marks-decline");
    t.exec(rows);
    io::Diagnostics diag;
    recipes::RankDb db(t.path, diag);
    frame::Frame got;
    EXPECT_FALSE(
        mstx_sum::scan_mstx_marks(db.database(), mstx_sum::mstx_mark_sql(), 0, kMaxNs, got))
        << what;
    EXPECT_FALSE(mstx_sum::scan_step_time(db.database(), mstx_sum::mstx_step_sql(), got)) << what;
  };
  declines(random_mark_rows(3) +
               "CREATE INDEX ix ON MSTX_EVENTS (startNs);"
               "CREATE INDEX iy ON STEP_TIME (startNs);",
           "indexes on startNs: other plans");
  declines(random_mark_rows(3) +
               "INSERT INTO MSTX_EVENTS (startNs, eventType) VALUES (1.5, 3);"
               "INSERT INTO STEP_TIME VALUES (1, 2.5, 3);",
           "real starts");
}

}  // namespace
}  // namespace cs::recipes
