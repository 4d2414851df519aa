// msprof_analyze/recipes/free_analysis/free_analysis_scan.h: the busy intervals and the link rows
// read as table scans give exactly what msprof-analyze's SQL gives on the same rows (ties, equal
// starts, nested and zero-length tasks, repeated connection ids), and the scans decline what they
// cannot reproduce.
#include "msprof_analyze/recipes/free_analysis/free_analysis_scan.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <random>
#include <string>
#include <type_traits>

#include "msprof_analyze/recipes/free_analysis/free_analysis.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "recipes/recipe_test_util.h"
#include "recipes/scan_test_util.h"

namespace cs::recipes {
namespace {

// The profiler's schema for the tables free_analysis reads (as torch_npu writes them).
const char* kFreeAnalysisSchema = CS_TEST_STRING_IDS_AND_TASK
    "CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER PRIMARY KEY,blockDim "
    "INTEGER);"
    "CREATE TABLE COMMUNICATION_OP (opName INTEGER,startNs INTEGER,endNs INTEGER,connectionId "
    "INTEGER,groupName INTEGER,opId INTEGER PRIMARY KEY);"
    "CREATE TABLE CANN_API (startNs INTEGER,endNs INTEGER,type INTEGER,globalTid INTEGER,"
    "connectionId INTEGER PRIMARY KEY,name INTEGER, depth integer);"
    "CREATE TABLE PYTORCH_API (startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER,"
    " name INTEGER);"
    "CREATE TABLE CONNECTION_IDS (id INTEGER, connectionId INTEGER);";

// Random rows on a small grid of times, so starts and ends tie often; tasks may be nested,
// zero-length or end before they start; ids repeat and some are missing.
// With `nulls`, some TASK starts and task ids are NULL (TaskIndex puts them first).
std::string random_free_rows(unsigned seed, bool task_index = true, bool nulls = false) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::string sql =
      std::string("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;") + kFreeAnalysisSchema;
  for (int i = 1; i <= 4; ++i)
    sql += "INSERT INTO STRING_IDS VALUES (" + std::to_string(i) + ", 'KIND_" + std::to_string(i) +
           "');";
  const int tasks = pick(0, 40);
  for (int i = 0; i < tasks; ++i) {
    const int s = pick(0, 30);
    const int len = pick(0, 6) == 0 ? -pick(1, 3) : pick(0, 8);
    const std::string conn = pick(0, 8) == 0 ? "NULL" : std::to_string(pick(1, 25));
    const std::string type = pick(0, 8) == 0 ? "NULL" : std::to_string(pick(1, 5));
    const std::string start = nulls && pick(0, 5) == 0 ? "NULL" : std::to_string(s);
    const std::string task_id = nulls && pick(0, 5) == 0 ? "NULL" : std::to_string(pick(0, 20));
    sql += "INSERT INTO TASK (startNs, endNs, connectionId, globalTaskId, taskType) VALUES (" +
           start + "," + std::to_string(s + len) + "," + conn + "," + task_id + "," + type + ");";
  }
  for (int g = 0; g < 12; ++g)
    if (pick(0, 1))
      sql += "INSERT INTO COMPUTE_TASK_INFO (globalTaskId) VALUES (" + std::to_string(g) + ");";
  const int comms = pick(0, 6);
  for (int i = 0; i < comms; ++i) {
    const int s = pick(0, 30);
    sql += "INSERT INTO COMMUNICATION_OP (startNs, endNs) VALUES (" + std::to_string(s) + "," +
           std::to_string(s + pick(0, 5)) + ");";
  }
  for (int c = 1; c <= 20; ++c)
    if (pick(0, 3))
      sql += "INSERT INTO CANN_API (startNs, endNs, connectionId) VALUES (" +
             std::to_string(pick(0, 30)) + "," + std::to_string(pick(30, 40)) + "," +
             std::to_string(c) + ");";
  const int conns = pick(0, 30);
  for (int i = 0; i < conns; ++i) {
    const std::string id = pick(0, 6) == 0 ? "NULL" : std::to_string(pick(1, 15));
    sql += "INSERT INTO CONNECTION_IDS VALUES (" + id + "," + std::to_string(pick(1, 22)) + ");";
  }
  for (int p = 1; p <= 14; ++p)
    if (pick(0, 2))
      sql += "INSERT INTO PYTORCH_API (startNs, endNs, connectionId) VALUES ('" +
             std::to_string(pick(0, 30)) + "','" + std::to_string(pick(30, 40)) + "'," +
             std::to_string(p) + ");";
  if (task_index) sql += "CREATE INDEX TaskIndex ON TASK (startNs,globalTaskId);";
  return sql + "COMMIT;";
}

TEST(MergeBusyIntervals, NestedTouchingEqualStartsAndZeroLength) {
  // (0,10) holds (2,5); (10,12) touches it (not later: one group); (12,12) zero length; (20,25)
  // and (20,21) start together; (29,29) alone.
  const auto out = free_analysis::merge_busy_intervals(
      {{20, 21}, {0, 10}, {2, 5}, {10, 12}, {12, 12}, {20, 25}, {29, 29}});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].start, 0);
  EXPECT_EQ(out[0].end, 12);
  EXPECT_EQ(out[1].start, 20);
  EXPECT_EQ(out[1].end, 25);
  EXPECT_EQ(out[2].start, 29);
  EXPECT_EQ(out[2].end, 29);
  EXPECT_TRUE(free_analysis::merge_busy_intervals({}).empty());
}

TEST(MergeBusyIntervals, EqualStartsShareAGroupEvenAfterAnEarlierEnd) {
  // (5,3) ends before it starts; (5,9) starts with it: one group from 5 to 9, as SUM() OVER
  // (ORDER BY startNs) gives the peers one group id.
  const auto out = free_analysis::merge_busy_intervals({{0, 1}, {5, 3}, {5, 9}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].start, 5);
  EXPECT_EQ(out[1].end, 9);
}

TEST(FreeAnalysisScan, BusyIntervalsEqualTheSqlOnRandomRows) {
  for (unsigned seed = 1; seed <= 150; ++seed) {
    ScratchProfilerDb t("fa-busy");
    t.exec(random_free_rows(seed));
    io::Diagnostics diag;
    recipes::RankDb db(t.path, diag);
    ASSERT_TRUE(db.ok());
    frame::Frame want;
    ASSERT_TRUE(db.query(free_analysis::free_analysis_busy_sql(), {}, want, "TASK", diag));
    std::vector<free_analysis::BusyInterval> got;
    ASSERT_TRUE(free_analysis::scan_busy_intervals(db.database(), got)) << "seed " << seed;
    ASSERT_EQ(got.size(), want.rows()) << "seed " << seed;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(frame::Cell::integer(got[i].start), want.columns[0].cells[i]) << "seed " << seed;
      EXPECT_EQ(frame::Cell::integer(got[i].end), want.columns[1].cells[i]) << "seed " << seed;
    }
  }
}

// A raw value is copied to every row its launch matches: no text copied with it.
static_assert(std::is_trivially_copyable_v<free_analysis::RawValue> &&
              sizeof(free_analysis::RawValue) == 32);

// The link rows the scan gives for `seed`'s rows are the SQL's, row for row.
void expect_link_rows_equal_the_sql(unsigned seed, bool nulls) {
  {
    ScratchProfilerDb t("fa-link");
    t.exec(random_free_rows(seed, true, nulls));
    io::Diagnostics diag;
    recipes::RankDb db(t.path, diag);
    ASSERT_TRUE(db.ok());
    frame::Frame want;
    free_analysis::LinkRows scanned;
    ASSERT_TRUE(db.query(free_analysis::free_analysis_link_sql(), {}, want, "TASK", diag));
    ASSERT_TRUE(free_analysis::scan_link_rows(db.database(),
                                              free_analysis::free_analysis_link_sql(), scanned))
        << "seed " << seed;
    // Moved, the rows still read their texts (kept by the LinkRows, not by each value).
    const free_analysis::LinkRows got = std::move(scanned);
    ASSERT_EQ(want.columns.size(), 7u);
    ASSERT_EQ(got.cells.columns.size(), 5u);
    ASSERT_EQ(got.cells.rows(), want.rows()) << "seed " << seed;
    for (size_t c = 0; c < 5; ++c) {
      EXPECT_EQ(got.cells.columns[c].name, want.columns[c].name);
      for (size_t r = 0; r < want.rows(); ++r)
        EXPECT_EQ(got.cells.columns[c].cells[r], want.columns[c].cells[r])
            << "seed " << seed << " column " << want.columns[c].name << " row " << r;
    }
    // The PyTorch times as raw values: the same kind and value as the SQL's cells.
    ASSERT_EQ(got.pytorch_ts.size(), want.rows());
    ASSERT_EQ(got.pytorch_end.size(), want.rows());
    for (size_t r = 0; r < want.rows(); ++r)
      for (size_t c : {5u, 6u}) {
        const free_analysis::RawValue& v = c == 5 ? got.pytorch_ts[r] : got.pytorch_end[r];
        const frame::Cell& w = want.columns[c].cells[r];
        EXPECT_EQ(v.kind, w.kind) << "seed " << seed << " row " << r;
        EXPECT_EQ(v.str(), w.str()) << "seed " << seed << " row " << r;
        EXPECT_EQ(v.num(), w.num()) << "seed " << seed << " row " << r;
      }
  }
}

TEST(FreeAnalysisScan, LinkRowsEqualTheSqlOnRandomRows) {
  for (unsigned seed = 1; seed <= 150; ++seed) expect_link_rows_equal_the_sql(seed, false);
}

// TASK is read in rowid order and sorted into TaskIndex's (startNs, globalTaskId, rowid) order:
// NULL starts and task ids come first, as in the index.
TEST(FreeAnalysisScan, LinkRowsEqualTheSqlWithNullStartsAndTaskIds) {
  for (unsigned seed = 1; seed <= 150; ++seed) expect_link_rows_equal_the_sql(seed, true);
}

// One read of TASK for both queries gives what each scan gives alone, and the SQL's rows.
TEST(FreeAnalysisScan, BothQueriesFromOneReadEqualTheSql) {
  for (unsigned seed = 1; seed <= 60; ++seed) {
    ScratchProfilerDb t("fa-both");
    t.exec(random_free_rows(seed));
    io::Diagnostics diag;
    recipes::RankDb db(t.path, diag);
    ASSERT_TRUE(db.ok());
    frame::Frame busy, link;
    ASSERT_TRUE(db.query(free_analysis::free_analysis_busy_sql(), {}, busy, "TASK", diag));
    ASSERT_TRUE(db.query(free_analysis::free_analysis_link_sql(), {}, link, "TASK", diag));
    const std::string link_sql = free_analysis::free_analysis_link_sql();
    const free_analysis::FreeAnalysisScan got =
        free_analysis::scan_free_analysis(db.database(), &link_sql);
    ASSERT_TRUE(got.busy_ok && got.link_ok) << "seed " << seed;
    ASSERT_EQ(got.busy.size(), busy.rows()) << "seed " << seed;
    for (size_t i = 0; i < got.busy.size(); ++i) {
      EXPECT_EQ(frame::Cell::integer(got.busy[i].start), busy.columns[0].cells[i])
          << "seed " << seed;
      EXPECT_EQ(frame::Cell::integer(got.busy[i].end), busy.columns[1].cells[i]) << "seed " << seed;
    }
    ASSERT_EQ(got.link.cells.rows(), link.rows()) << "seed " << seed;
    for (size_t c = 0; c < 5; ++c)
      for (size_t r = 0; r < link.rows(); ++r)
        EXPECT_EQ(got.link.cells.columns[c].cells[r], link.columns[c].cells[r])
            << "seed " << seed << " column " << c << " row " << r;
    // Without a link query only the busy intervals are read.
    const free_analysis::FreeAnalysisScan busy_only =
        free_analysis::scan_free_analysis(db.database(), nullptr);
    EXPECT_TRUE(busy_only.busy_ok);
    EXPECT_FALSE(busy_only.link_ok);
    EXPECT_EQ(busy_only.busy.size(), got.busy.size());
  }
}

TEST(FreeAnalysisScan, DeclinesWhatItCannotReproduce) {
  {  // no TaskIndex: SQLite sorts the rows itself, the scan does not guess its order
    ScratchProfilerDb t("fa-noindex");
    t.exec(random_free_rows(7, false));
    io::Diagnostics diag;
    recipes::RankDb db(t.path, diag);
    free_analysis::LinkRows got;
    EXPECT_FALSE(
        free_analysis::scan_link_rows(db.database(), free_analysis::free_analysis_link_sql(), got));
  }
  {  // a repeated PYTORCH_API connectionId
    ScratchProfilerDb t("fa-pydup");
    t.exec(random_free_rows(7));
    t.exec(
        "INSERT INTO PYTORCH_API (startNs, endNs, connectionId) VALUES ('1','2',3),"
        "('4','5',3)");
    io::Diagnostics diag;
    recipes::RankDb db(t.path, diag);
    free_analysis::LinkRows got;
    EXPECT_FALSE(
        free_analysis::scan_link_rows(db.database(), free_analysis::free_analysis_link_sql(), got));
  }
  {  // TaskIndex on other columns: SQLite's plan reads the same, its order is not (start, id)
    ScratchProfilerDb t("fa-otherindex");
    std::string rows = random_free_rows(7, false);
    rows.insert(rows.rfind("COMMIT;"), "CREATE INDEX TaskIndex ON TASK (startNs, endNs);");
    t.exec(rows);
    io::Diagnostics diag;
    recipes::RankDb db(t.path, diag);
    free_analysis::LinkRows got;
    EXPECT_FALSE(
        free_analysis::scan_link_rows(db.database(), free_analysis::free_analysis_link_sql(), got));
    std::vector<free_analysis::BusyInterval> busy;
    EXPECT_TRUE(
        free_analysis::scan_busy_intervals(db.database(), busy));  // the busy query needs no index
  }
  {  // a TASK start that is a real number: TaskIndex's order is left to SQLite
    ScratchProfilerDb t("fa-realstart");
    t.exec(random_free_rows(7));
    t.exec("INSERT INTO TASK (startNs, endNs, globalTaskId) VALUES (2.5, 9, 99)");
    io::Diagnostics diag;
    recipes::RankDb db(t.path, diag);
    free_analysis::LinkRows got;
    EXPECT_FALSE(
        free_analysis::scan_link_rows(db.database(), free_analysis::free_analysis_link_sql(), got));
  }
  {  // a start that is text, not an integer: the SQL's comparisons are its own
    ScratchProfilerDb t("fa-text");
    t.exec(std::string(kFreeAnalysisSchema) +
           "INSERT INTO COMMUNICATION_OP (startNs, endNs) VALUES ('x', 5)");
    io::Diagnostics diag;
    recipes::RankDb db(t.path, diag);
    std::vector<free_analysis::BusyInterval> got;
    EXPECT_FALSE(free_analysis::scan_busy_intervals(db.database(), got));
  }
}

}  // namespace
}  // namespace cs::recipes
