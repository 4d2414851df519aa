// cluster_analysis.db's HostInfo and RankDeviceMap (msprof_analyze/db_all/cluster_db_all.h): each
// rank's HOST_INFO and RANK_DEVICE_MAP read straight from the profiler database's pages give the
// tables SQLite's queries give, for values of every storage class (a table whose CREATE statement
// the page reader declines is read by SQLite: the reference).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "msprof_analyze/db_all/cluster_db_all.h"
#include "recipes/recipe_test_util.h"
#include "support/sqlite_exec.h"

namespace fs = std::filesystem;

namespace cs::recipes {
namespace {

void exec(const fs::path& db, const std::string& sql) {
  test::sqlite_exec(db.string(), sql);
}

// The rows of `table` in `db`, one "value|value|..." line each, with each value's type.
std::string rows(const fs::path& db, const std::string& table, const std::string& columns) {
  sqlite3* h = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  std::string out;
  if (sqlite3_prepare_v2(h, ("SELECT " + columns + " FROM " + table).c_str(), -1, &st, nullptr) ==
      SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW) {
      for (int c = 0; c < sqlite3_column_count(st); ++c)
        out +=
            std::string(sqlite3_column_decltype(st, c) ? "" : "") +
            std::to_string(sqlite3_column_type(st, c)) + ":" +
            (sqlite3_column_text(st, c) ? reinterpret_cast<const char*>(sqlite3_column_text(st, c))
                                        : "NULL") +
            "|";
      out += "\n";
    }
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

// HostInfo and RankDeviceMap (without the paths) of the job made of the real two ranks, rank 0's
// tables replaced: `collate` makes the reader decline them, so SQLite reads them.
std::string host_tables(const std::string& name, const std::string& collate) {
  const fs::path job = test::temp_dir("db-hosts-job-" + name);
  test::copy_real_db_rank(job, 0);
  test::copy_real_db_rank(job, 1);
  const fs::path db = job / "node_100_1736410538_ascend_pt" / "ASCEND_PROFILER_OUTPUT" /
                      "ascend_pytorch_profiler_0.db";
  exec(db,
       "DROP TABLE HOST_INFO; DROP TABLE RANK_DEVICE_MAP;"
       "CREATE TABLE HOST_INFO (hostUid" +
           collate +
           ",hostName TEXT);"
           "INSERT INTO HOST_INFO VALUES (123456789012, 'node-a'), ('second', 'row');"
           "CREATE TABLE RANK_DEVICE_MAP (rankId" +
           collate +
           ", deviceId);"
           "INSERT INTO RANK_DEVICE_MAP VALUES (0, 0), ('3', 4.0), (NULL, 1), (' 7', '8'),"
           "(2.5, 1), ('x', 2), ('9 ', 3), (5, -0.0), (1e30, 6), ('', 7), (x'3131', 8);");
  const fs::path out = test::temp_dir("db-hosts-out-" + name);
  db_all::ClusterDbOptions opts;
  opts.input_dir = job.string();
  opts.output_dir = out.string();
  opts.quiet = true;
  EXPECT_EQ(db_all::write_cluster_analysis_db(test::one_process_session(), opts), 0) << name;
  const fs::path written = out / "cluster_analysis_output" / "cluster_analysis.db";
  std::string got = rows(written, "HostInfo", "hostUid, hostName") + "--\n" +
                    rows(written, "RankDeviceMap", "rankId, deviceId, hostUid");
  fs::remove_all(job);
  fs::remove_all(out);
  return got;
}

TEST(ClusterDbHosts, FromThePagesAsFromSqlite) {
  const std::string direct = host_tables("direct", "");
  const std::string by_sqlite = host_tables("sqlite", " COLLATE BINARY");
  EXPECT_EQ(direct, by_sqlite);
  // Rank 0's host is its first HOST_INFO row (written as TEXT, msprof-analyze's column type);
  // its map keeps the rows whose two values SQLite's int64 reading accepts: '3' and 4.0, ' 7'
  // (leading space) and '8', 5 and -0.0; not 2.5, 'x', '9 ' (trailing space), 1e30, '' or a blob.
  // The map is sorted by rank (rank 1's own row between).
  EXPECT_NE(direct.find("3:123456789012|3:node-a|\n"), std::string::npos) << direct;
  EXPECT_NE(direct.find("1:0|1:0|3:123456789012|\n1:1|1:1|3:3538958389648580163|\n"
                        "1:3|1:4|3:123456789012|\n1:5|1:0|3:123456789012|\n"
                        "1:7|1:8|3:123456789012|\n"),
            std::string::npos)
      << direct;
  EXPECT_EQ(direct.find("1:9|"), std::string::npos) << direct;
  EXPECT_EQ(direct.find("1:2|"), std::string::npos) << direct;
}

}  // namespace
}  // namespace cs::recipes
