#pragma once
// What the table-scan tests share (test_*_scan.cpp): a scratch profiler database written by SQL,
// and the check that a scan's frame is the SQL's, cell for cell.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>

#include "cli/cli_test_util.h"
#include "frame/frame.h"
#include "support/test_files.h"

// STRING_IDS and TASK as torch_npu creates them, for a test's schema literal:
//   const char* kSchema = CS_TEST_STRING_IDS_AND_TASK "CREATE TABLE ...;";
#define CS_TEST_STRING_IDS_AND_TASK                                                             \
  "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);"                                \
  "CREATE TABLE TASK (startNs INTEGER,endNs INTEGER,deviceId INTEGER,connectionId INTEGER,"     \
  "globalTaskId INTEGER,globalPid INTEGER,taskType INTEGER,contextId INTEGER,streamId INTEGER," \
  "taskId INTEGER,modelId INTEGER, depth integer);"

// MSTX_EVENTS as torch_npu writes it, for the mstx scans' tests.
#define CS_TEST_MSTX_EVENTS                                                                    \
  "CREATE TABLE MSTX_EVENTS (startNs INTEGER,endNs INTEGER,eventType INTEGER,rangeId INTEGER," \
  "category INTEGER,message INTEGER,globalTid INTEGER,endGlobalTid INTEGER,domainId INTEGER,"  \
  "connectionId INTEGER, depth integer);"

namespace cs::recipes {

// The end of the time range a scan test reads whole: [0, kMaxNs].
inline constexpr int64_t kMaxNs = std::numeric_limits<int64_t>::max();

// ascend_pytorch_profiler_0.db in a temporary directory of its own, removed with it.
struct ScratchProfilerDb {
  std::filesystem::path dir;
  std::string path;
  explicit ScratchProfilerDb(const std::string& name) {
    dir = cs::test::temp_dir(name);
    path = (dir / "ascend_pytorch_profiler_0.db").string();
  }
  ~ScratchProfilerDb() { std::filesystem::remove_all(dir); }
  // Runs `sql` (several statements) on the database, creating it.
  void exec(const std::string& sql) {
    sqlite3* w = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &w), SQLITE_OK);
    char* err = nullptr;
    const int rc = sqlite3_exec(w, sql.c_str(), nullptr, nullptr, &err);
    EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "");
    sqlite3_free(err);
    sqlite3_close(w);
  }
};

// `got` (a scan's frame) equals `want` (the SQL's): the same columns, rows and cells.
inline void expect_same_frame(const frame::Frame& got, const frame::Frame& want, unsigned seed) {
  ASSERT_EQ(got.columns.size(), want.columns.size());
  ASSERT_EQ(got.rows(), want.rows()) << "seed " << seed;
  for (size_t c = 0; c < want.columns.size(); ++c) {
    EXPECT_EQ(got.columns[c].name, want.columns[c].name);
    for (size_t r = 0; r < want.rows(); ++r)
      EXPECT_EQ(got.columns[c].cells[r], want.columns[c].cells[r])
          << "seed " << seed << " column " << want.columns[c].name << " row " << r;
  }
}

}  // namespace cs::recipes
