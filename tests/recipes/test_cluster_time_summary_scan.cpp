// msprof_analyze/recipes/cluster_time_summary/cluster_time_summary_scan.h: the communication and
// overlap rows read as table scans give what msprof-analyze's SQL gives on the same rows (steps
// sharing a boundary, NULL step ranges, tasks without a launch, equal times across compute,
// communication and memory copies), and the scans decline what they cannot reproduce.
#include "msprof_analyze/recipes/cluster_time_summary/cluster_time_summary_scan.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <tuple>

#include "msprof_analyze/recipes/cluster_time_summary/cluster_time_summary.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "recipes/recipe_test_util.h"
#include "recipes/scan_test_util.h"
#include "support/sqlite_exec.h"

namespace cs::recipes {
namespace {

const char* kTimeSummarySchema =
    "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);"
    "CREATE TABLE RANK_DEVICE_MAP (rankId INTEGER, deviceId INTEGER);"
    "CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);"
    "CREATE TABLE TASK (startNs INTEGER,endNs INTEGER,deviceId INTEGER,connectionId INTEGER,"
    "globalTaskId INTEGER,globalPid INTEGER,taskType INTEGER);"
    "CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER PRIMARY KEY);"
    "CREATE TABLE COMMUNICATION_OP (opName INTEGER,startNs INTEGER,endNs INTEGER,connectionId "
    "INTEGER,groupName INTEGER,opId INTEGER PRIMARY KEY);"
    "CREATE TABLE CANN_API (startNs INTEGER,endNs INTEGER,type INTEGER,globalTid INTEGER,"
    "connectionId INTEGER PRIMARY KEY);";

const int64_t kLo = 0, kHi = std::numeric_limits<int64_t>::max();

std::string make_db(const std::filesystem::path& dir, unsigned seed, bool task_index = true) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto n = [](int v) { return std::to_string(v); };
  std::string sql = std::string("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;") +
                    kTimeSummarySchema +
                    "INSERT INTO STRING_IDS VALUES (1,'MEMCPY_ASYNC'),(2,'KERNEL'),(3,'group_a'),"
                    "(4,'group_b'),(5,'hcom_allReduce_'),(6,'hcom_broadcast_');";
  if (pick(0, 3) == 0) sql += "INSERT INTO STRING_IDS VALUES (7,'MEMCPY_ASYNC');";
  const int ranks = pick(0, 4) == 0 ? 2 : 1;
  for (int r = 0; r < ranks; ++r) sql += "INSERT INTO RANK_DEVICE_MAP VALUES (" + n(r * 8) + ",0);";
  // Steps that share boundaries, overlap, or have a NULL end.
  int t = 0;
  const int steps = pick(0, 4);
  for (int s = 1; s <= steps; ++s) {
    const int len = pick(3, 12);
    const std::string end = pick(0, 8) == 0 ? "NULL" : n(t + len);
    sql += "INSERT INTO STEP_TIME VALUES (" + n(s) + "," + n(t) + "," + end + ");";
    t += len - pick(0, 1);
  }
  for (int c = 1; c <= 30; ++c)
    if (pick(0, 4))
      sql += "INSERT INTO CANN_API (startNs, endNs, connectionId) VALUES (" +
             (pick(0, 10) == 0 ? std::string("NULL") : n(pick(0, 40))) + "," + n(pick(0, 40)) +
             "," + n(c) + ");";
  for (int g = 0; g < 12; ++g)
    if (pick(0, 1)) sql += "INSERT INTO COMPUTE_TASK_INFO (globalTaskId) VALUES (" + n(g) + ");";
  const int tasks = pick(0, 40);
  for (int i = 0; i < tasks; ++i) {
    const int s = pick(0, 12);
    const std::string conn = pick(0, 8) == 0 ? "NULL" : n(pick(1, 32));
    sql += "INSERT INTO TASK (startNs, endNs, connectionId, globalTaskId, taskType) VALUES (" +
           n(s) + "," + (pick(0, 15) == 0 ? std::string("NULL") : n(s + pick(0, 4))) + "," + conn +
           "," + n(pick(0, 14)) + "," + n(pick(1, 2)) + ");";
  }
  const int comms = pick(0, 12);
  for (int i = 0; i < comms; ++i) {
    const int s = pick(0, 12);
    const std::string end = pick(0, 10) == 0 ? "NULL" : n(s + pick(0, 4));
    sql +=
        "INSERT INTO COMMUNICATION_OP (opName, startNs, endNs, connectionId, groupName) "
        "VALUES (" +
        n(pick(5, 7)) + "," + n(s) + "," + end + "," + n(pick(1, 32)) + "," + n(pick(3, 4)) + ");";
  }
  if (task_index) sql += "CREATE INDEX TaskIndex ON TASK (startNs,globalTaskId);";
  sql += "COMMIT;";
  const std::string path = (dir / ("ascend_pytorch_profiler_" + n(seed) + ".db")).string();
  test::sqlite_exec(path, sql);
  return path;
}

TEST(TimeSummaryScan, CommunicationRowsEqualTheSqlOnRandomRows) {
  const auto dir = cs::test::temp_dir("cts-comm");
  for (unsigned seed = 1; seed <= 150; ++seed) {
    const std::string path = make_db(dir, seed);
    io::Diagnostics diag;
    recipes::RankDb db(path, diag);
    ASSERT_TRUE(db.ok());
    const std::string sql = cluster_time_summary::cluster_time_summary_communication_sql(true);
    frame::Frame want, got;
    ASSERT_TRUE(db.query(sql, {kLo, kHi}, want, "COMMUNICATION_OP", diag));
    ASSERT_TRUE(
        cluster_time_summary::TimeSummaryScan(db.database()).communication(sql, kLo, kHi, got))
        << seed;
    expect_same_frame(got, want, seed);
  }
  std::filesystem::remove_all(dir);
}

// The overlap rows: the same (start, end, type) sequence as the SQL (ties across the three
// parts in its order) and the same rows; rows equal in (start, end, type) may differ in order
// only among themselves, which the per-step sums cannot see.
TEST(TimeSummaryScan, OverlapRowsEqualTheSqlOnRandomRows) {
  const auto dir = cs::test::temp_dir("cts-overlap");
  using Row = std::tuple<int64_t, int64_t, int64_t, std::string>;
  auto rows_of = [](const frame::Frame& f) {
    std::vector<Row> v;
    auto num = [](const frame::Cell& c) { return c.is_null() ? int64_t{-1} : c.i(); };
    for (size_t r = 0; r < f.rows(); ++r)
      v.emplace_back(num(f.columns[0].cells[r]), num(f.columns[1].cells[r]),
                     f.columns[2].cells[r].i(),
                     f.columns[3].cells[r].is_null() ? std::string("NULL")
                                                     : std::to_string(f.columns[3].cells[r].i()));
    return v;
  };
  for (unsigned seed = 1; seed <= 150; ++seed) {
    const std::string path = make_db(dir, seed);
    io::Diagnostics diag;
    recipes::RankDb db(path, diag);
    ASSERT_TRUE(db.ok());
    const std::string sql = cluster_time_summary::cluster_time_summary_overlap_sql(true);
    frame::Frame want, got;
    ASSERT_TRUE(db.query(sql, {kLo, kHi}, want, "TASK", diag));
    ASSERT_TRUE(cluster_time_summary::TimeSummaryScan(db.database()).overlap(sql, kLo, kHi, got))
        << seed;
    ASSERT_EQ(got.rows(), want.rows()) << "seed " << seed;
    for (size_t c = 0; c < want.columns.size(); ++c)
      EXPECT_EQ(got.columns[c].name, want.columns[c].name);
    auto g = rows_of(got), w = rows_of(want);
    for (size_t r = 0; r < g.size(); ++r)
      EXPECT_EQ(std::make_tuple(std::get<0>(g[r]), std::get<1>(g[r]), std::get<2>(g[r])),
                std::make_tuple(std::get<0>(w[r]), std::get<1>(w[r]), std::get<2>(w[r])))
          << "seed " << seed << " row " << r;
    std::sort(g.begin(), g.end());
    std::sort(w.begin(), w.end());
    EXPECT_EQ(g, w) << "seed " << seed;
  }
  std::filesystem::remove_all(dir);
}

TEST(TimeSummaryScan, DeclinesOtherPlansAndValues) {
  const auto dir = cs::test::temp_dir("cts-decline");
  {  // no TaskIndex: another plan
    const std::string path = make_db(dir, 5, false);
    io::Diagnostics diag;
    recipes::RankDb db(path, diag);
    frame::Frame got;
    EXPECT_FALSE(
        cluster_time_summary::TimeSummaryScan(db.database())
            .overlap(cluster_time_summary::cluster_time_summary_overlap_sql(true), kLo, kHi, got));
  }
  {  // without STEP_TIME the queries are other queries
    const std::string path = make_db(dir, 6);
    io::Diagnostics diag;
    recipes::RankDb db(path, diag);
    frame::Frame got;
    EXPECT_FALSE(
        cluster_time_summary::TimeSummaryScan(db.database())
            .communication(cluster_time_summary::cluster_time_summary_communication_sql(false), kLo,
                           kHi, got));
  }
  {  // a text start time
    const std::string path = make_db(dir, 7);
    sqlite3* w = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &w), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(w, "INSERT INTO TASK (startNs, endNs) VALUES ('x', 3)", nullptr, nullptr,
                           nullptr),
              SQLITE_OK);
    sqlite3_close(w);
    io::Diagnostics diag;
    recipes::RankDb db(path, diag);
    frame::Frame got;
    EXPECT_FALSE(
        cluster_time_summary::TimeSummaryScan(db.database())
            .overlap(cluster_time_summary::cluster_time_summary_overlap_sql(true), kLo, kHi, got));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cs::recipes
