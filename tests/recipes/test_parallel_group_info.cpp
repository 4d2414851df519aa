// The communication recipes' parallel_group_info (META_DATA of the rank's profiler database):
// read straight from the file's pages (io/sqlite/table_reader) it gives what SQLite's query gives
// (a META_DATA whose CREATE statement the reader declines is read by SQLite), also for a value on
// overflow pages, an empty table, and a table without the queried column (SQLite's error).
#include <gtest/gtest.h>

#include <string>

#include "msprof_analyze/recipes/communication_group_map/communication_group_map.h"
#include "recipes/scan_test_util.h"

namespace cs::recipes {
namespace {

// parallel_group_info for `groups` groups of 8 ranks: a JSON object of some 10 KB at 100 groups.
std::string group_info(int groups) {
  std::string json = "{";
  for (int g = 0; g < groups; ++g) {
    json += (g ? ", " : "") + std::string("\"") + std::to_string(1000 + g) +
            "\": {\"group_name\": \"tp_" + std::to_string(g) + "\", \"group_rank\": 0, " +
            "\"global_ranks\": [";
    for (int r = 0; r < 8; ++r) json += (r ? ", " : "") + std::to_string(g * 8 + (7 - r));
    json += "]}";
  }
  return json + "}";
}

// The parallel_info frame communication_groups_from reads for a rank whose profiler database is
// made by `schema_sql` (META_DATA's CREATE statement and rows).
frame::Frame parallel_info(const std::string& name, const std::string& schema_sql,
                           io::Diagnostics& diag) {
  ScratchProfilerDb db(name);
  db.exec(schema_sql);
  frame::Frame time;
  time.add("hccl_op_name").push_back(frame::Cell::text("hcom_allReduce__1_1_1"));
  time.add("group_name").push_back(frame::Cell::text("1000"));
  RankDbPaths paths;
  paths.rank = 0;
  paths.profiler_db = db.path;
  frame::FrameSet out;
  communication_group_map::communication_groups_from(paths, &time, out, diag);
  return out["parallel_info"];
}

std::string rows_of(const std::string& info) {
  std::string quoted;
  for (char c : info) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  return "INSERT INTO META_DATA VALUES ('SCHEMA_VERSION', '5'), ('parallel_group_info', '" +
         quoted + "'), ('parallel_group_info', '{}');";
}

TEST(ParallelGroupInfo, FromThePagesAsFromSqlite) {
  const std::string info = group_info(100);
  ASSERT_GT(info.size(), size_t{8000}) << "the value spans overflow pages";
  io::Diagnostics d1, d2;
  const frame::Frame direct = parallel_info(
      "pgi-direct", "CREATE TABLE META_DATA (name TEXT,value TEXT);" + rows_of(info), d1);
  // COLLATE BINARY changes nothing SQLite returns, but the reader declines it: SQLite reads.
  const frame::Frame by_sqlite = parallel_info(
      "pgi-sqlite", "CREATE TABLE META_DATA (name TEXT COLLATE BINARY,value TEXT);" + rows_of(info),
      d2);
  EXPECT_TRUE(d1.empty());
  EXPECT_TRUE(d2.empty());
  ASSERT_EQ(direct.rows(), 100u);
  expect_same_frame(direct, by_sqlite, 0);
  EXPECT_EQ(direct.columns[3].cells[0].str(), "(0,1,2,3,4,5,6,7)");
}

TEST(ParallelGroupInfo, EmptyTableAndMissingColumn) {
  io::Diagnostics empty_diag;
  EXPECT_EQ(parallel_info("pgi-empty", "CREATE TABLE META_DATA (name TEXT,value TEXT);", empty_diag)
                .rows(),
            0u);
  EXPECT_TRUE(empty_diag.empty());
  // No "value" column: SQLite's query fails, and the rank's error names the table.
  io::Diagnostics missing;
  EXPECT_EQ(parallel_info("pgi-nocol",
                          "CREATE TABLE META_DATA (name TEXT,other TEXT);"
                          "INSERT INTO META_DATA VALUES ('parallel_group_info', '{}');",
                          missing)
                .rows(),
            0u);
  ASSERT_FALSE(missing.empty());
  EXPECT_NE(missing.items()[0].what.find("META_DATA"), std::string::npos)
      << missing.items()[0].what;
}

}  // namespace
}  // namespace cs::recipes
