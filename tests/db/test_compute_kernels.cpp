// db::read_compute_kernels answers its join (COMPUTE_TASK_INFO x TASK in TaskIndex order), and
// db::read_communication_ops its sorted scan of COMMUNICATION_OP, from the file's pages when
// SQLite would plan them the profilers' way: on random databases with every
// awkward row (equal starts, NULL starts, ends and task ids, TASK rows joining nothing or the
// same kernel twice, string ids missing from STRING_IDS, optional columns present or not) it gives
// the kernels and messages SQLite's own run of the query gives (the same file in WAL mode, which
// the page reader leaves to SQLite).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "db/database.h"
#include "db/profiler_db.h"
#include "db/query_plan.h"
#include "db/string_ids.h"
#include "support/sqlite_exec.h"
#include "support/test_files.h"

namespace cs::db {
namespace {

using test::sqlite_exec;

// A random profiler database at `path`; `optional` adds waitNs and the format/shape columns.
void random_profiler_db(const std::string& path, std::mt19937_64& rng, bool optional) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  std::string sql =
      "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT);"
      "CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER PRIMARY KEY,"
      "blockDim INTEGER,taskType INTEGER,opType INTEGER,inputFormats INTEGER,"
      "inputDataTypes INTEGER,inputShapes INTEGER,outputFormats INTEGER,outputShapes INTEGER" +
      std::string(optional ? ", waitNs INTEGER" : "") +
      ");"
      "CREATE TABLE TASK (startNs INTEGER,endNs INTEGER,deviceId INTEGER,connectionId INTEGER,"
      "globalTaskId INTEGER,globalPid INTEGER,taskType INTEGER);"
      "CREATE INDEX TaskIndex ON TASK (startNs,globalTaskId);"
      "CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);"
      "CREATE TABLE COMMUNICATION_OP (opName INTEGER,startNs INTEGER,endNs INTEGER,connectionId "
      "INTEGER,groupName INTEGER,opId INTEGER PRIMARY KEY,relay INTEGER,retry INTEGER,dataType "
      "INTEGER,algType INTEGER,count NUMERIC,opType INTEGER, waitNs INTEGER);"
      "BEGIN;";
  const int strings = 40 + pick(40);
  for (int i = 0; i < strings; ++i)
    sql += "INSERT INTO STRING_IDS VALUES (" + std::to_string(i) + ", '\"op_" + std::to_string(i) +
           ",1\"');";
  auto id_or_null = [&]() -> std::string {
    const int r = pick(40);
    if (r == 0) return "NULL";
    if (r == 1) return std::to_string(strings + 5);  // missing from STRING_IDS
    return std::to_string(pick(strings));
  };
  const int kernels = 50 + pick(200);
  std::vector<int> task_ids;
  for (int k = 0; k < kernels; ++k) {
    const int id = 3 * k + pick(3);
    task_ids.push_back(id);
    sql +=
        "INSERT INTO COMPUTE_TASK_INFO (name, globalTaskId, opType, inputShapes, "
        "inputDataTypes, inputFormats, outputShapes, outputFormats" +
        std::string(optional ? ", waitNs" : "") + ") VALUES (" + id_or_null() + ", " +
        std::to_string(id) + ", " + id_or_null() + ", " + id_or_null() + ", " + id_or_null() +
        ", " + id_or_null() + ", " + id_or_null() + ", " + id_or_null() +
        (optional ? ", " + (pick(5) ? std::to_string(pick(1000)) : std::string("NULL")) : "") +
        ");";
  }
  const int tasks = kernels + pick(100);
  for (int t = 0; t < tasks; ++t) {
    // Starts from a small range (many equal), now and then NULL; task ids of kernels, of none,
    // NULL; the same kernel now and then twice.
    const std::string start =
        pick(30) ? std::to_string(1000000 + 1000 * pick(tasks / 3 + 1)) : std::string("NULL");
    const std::string end =
        pick(30) ? std::to_string(1000000 + 1000 * pick(tasks) + pick(5000)) : "NULL";
    const int r = pick(20);
    const std::string task = r == 0 ? std::string("NULL")
                             : r == 1
                                 ? std::to_string(3 * kernels + 100 + t)
                                 : std::to_string(task_ids[static_cast<size_t>(pick(kernels))]);
    sql += "INSERT INTO TASK (startNs, endNs, globalTaskId, deviceId) VALUES (" + start + ", " +
           end + ", " + task + ", 0);";
  }
  // Collectives: starts on a coarse grid (many equal), opIds out of insertion order.
  const int collectives = pick(120);
  for (int c = 0; c < collectives; ++c)
    sql += "INSERT INTO COMMUNICATION_OP (opId, opName, opType, startNs, endNs) VALUES (" +
           std::to_string(pick(100000) * 200 + c) + ", " + id_or_null() + ", " + id_or_null() +
           ", " + (pick(25) ? std::to_string(1000000 + 5000 * pick(20)) : std::string("NULL")) +
           ", " + (pick(25) ? std::to_string(1200000 + pick(100000)) : std::string("NULL")) + ");";
  sql += "INSERT INTO STEP_TIME VALUES (1, 1000000, 1000000 + " + std::to_string(300 * tasks) +
         "), (2, " + std::to_string(1000001 + 300 * tasks) + ", 9000000000);";
  sql += "COMMIT;";
  sqlite_exec(path, sql);
}

struct Read {
  std::vector<std::string> kernels;
  std::vector<std::string> messages;
};

Read read_kernels(const std::string& path) {
  Read out;
  io::Diagnostics diag;
  auto db = Database::open(path, diag);
  EXPECT_TRUE(db);
  if (!db) return out;
  StringIds strings;
  EXPECT_TRUE(strings.load(*db, diag));
  EXPECT_TRUE(read_compute_kernels(
      *db, strings,
      [&](const readers::KernelRecord& k) {
        char buf[128];
        std::snprintf(buf, sizeof buf, "|%.17g|%.17g|%.17g|%lld", k.start_us, k.duration_us,
                      k.wait_us, static_cast<long long>(k.step_id));
        out.kernels.push_back(
            std::string(k.name) + "|" + std::string(k.type) + "|" + std::string(k.input_shapes) +
            "|" + std::string(k.input_dtypes) + "|" + std::string(k.input_formats) + "|" +
            std::string(k.output_shapes) + "|" + std::string(k.output_formats) + buf);
      },
      diag));
  EXPECT_TRUE(read_communication_ops(
      *db, strings,
      [&](const CommunicationOp& op) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "|%.17g|%.17g", op.start_us, op.duration_us);
        out.kernels.push_back("comm|" + std::string(op.name) + "|" + std::string(op.type) + buf);
      },
      diag));
  for (const auto& d : diag.items()) {
    std::string what = d.to_string();
    const size_t at = what.find(path);
    if (at != std::string::npos) what.replace(at, path.size(), "FILE");
    out.messages.push_back(what);
  }
  return out;
}

TEST(ComputeKernelsFromPages, TheKernelsAndMessagesSqliteGives) {
  test::TempDir t("cs_kernels");
  std::mt19937_64 rng(20261128);
  size_t rows = 0, messages = 0;
  for (int i = 0; i < 60; ++i) {
    const std::string path = t.str() + "/p" + std::to_string(i) + ".db";
    const std::string wal = t.str() + "/w" + std::to_string(i) + ".db";
    random_profiler_db(path, rng, i % 2 == 0);
    std::filesystem::copy_file(path, wal);
    sqlite_exec(wal, "PRAGMA journal_mode=WAL; PRAGMA wal_checkpoint(TRUNCATE);");
    {
      // The page path's conditions hold for the first file: SQLite's plan is the profilers' and
      // both tables are read from the pages; the WAL copy is read by SQLite alone.
      io::Diagnostics diag;
      auto db = Database::open(path, diag);
      ASSERT_TRUE(db);
      EXPECT_TRUE(task_index_is_start_then_task_id(db->handle()));
      EXPECT_TRUE(db->page_scan("SELECT startNs, endNs, globalTaskId, rowid FROM TASK", true));
      auto w = Database::open(wal, diag);
      ASSERT_TRUE(w);
      EXPECT_FALSE(w->page_scan("SELECT startNs, endNs, globalTaskId FROM TASK"));
    }
    const Read pages = read_kernels(path), sqlite = read_kernels(wal);
    EXPECT_EQ(pages.kernels, sqlite.kernels) << "database " << i;
    EXPECT_EQ(pages.messages, sqlite.messages) << "database " << i;
    rows += pages.kernels.size();
    messages += pages.messages.size();
  }
  EXPECT_GT(rows, 3000u);
  EXPECT_GT(messages, 60u);  // NULLs and missing ids in every file
}

}  // namespace
}  // namespace cs::db
