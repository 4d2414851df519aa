// db::Database, db::Statement and db::StringIds on the real torch_npu DB export (tests/data/
// ascend-real/db_level{0,1}) and on broken files. Expected values were read with the sqlite3 shell:
//   sqlite3 analysis.db "select * from StepTraceTime"              -> 50|8903.431|98071.947|...
//   sqlite3 ascend_pytorch_profiler_0.db "select count(*) from STRING_IDS"      -> 1377
//   sqlite3 ascend_pytorch_profiler_0.db "select value from STRING_IDS where id=268435456" ->
//   Enqueue
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "db/database.h"
#include "db/string_ids.h"

namespace fs = std::filesystem;
using cs::db::Database;
using cs::db::StepResult;
using cs::db::StringIds;

namespace {

const std::string kLevel1 = std::string(CS_TEST_DATA) + "/ascend-real/db_level1/rank0_ascend_pt/";
const std::string kProfiler0 = kLevel1 + "ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db";
const std::string kAnalysis0 = kLevel1 + "ASCEND_PROFILER_OUTPUT/analysis.db";

fs::path temp_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("cs_db_test_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Writes a small database with the sqlite3 API (read-write, outside the layer under test).
void make_db(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_close(db);
}

std::string all_text(const cs::io::Diagnostics& d) {
  std::string s;
  for (const auto& x : d.items()) s += x.to_string() + "\n";
  return s;
}

}  // namespace

TEST(Database, OpensRealProfilerDbAndListsTables) {
  cs::io::Diagnostics diag;
  auto db = Database::open(kProfiler0, diag);
  ASSERT_TRUE(db) << all_text(diag);
  EXPECT_TRUE(diag.empty());
  EXPECT_TRUE(db->has_table("STRING_IDS"));
  EXPECT_TRUE(db->has_table("COMMUNICATION_OP"));
  EXPECT_TRUE(db->has_table("ENUM_HCCL_TRANSPORT_TYPE"));
  EXPECT_FALSE(db->has_table("NO_SUCH_TABLE"));
  EXPECT_FALSE(db->has_table("string_ids"));  // exact names
  auto cols = db->columns("TASK");
  ASSERT_EQ(cols.size(), 12u);
  EXPECT_EQ(cols[0], "startNs");
  EXPECT_EQ(cols[11], "depth");
  EXPECT_TRUE(db->has_column("TASK", "globalTaskId"));
  EXPECT_FALSE(db->has_column("TASK", "nope"));
  EXPECT_TRUE(db->require("TASK", {"startNs", "endNs", "taskType"}, diag));
  EXPECT_TRUE(diag.empty());
}

TEST(Database, TypedColumnsOfStepTraceTime) {
  cs::io::Diagnostics diag;
  auto db = Database::open(kAnalysis0, diag);
  ASSERT_TRUE(db) << all_text(diag);
  auto st = db->prepare("SELECT step, computing, bubble, preparing FROM StepTraceTime",
                        "StepTraceTime", diag);
  ASSERT_TRUE(st);
  ASSERT_EQ(st->step(diag), StepResult::kRow);
  EXPECT_EQ(st->text_at(0), "50");
  EXPECT_EQ(st->int64_at(0), 50);  // text holding an integer
  EXPECT_DOUBLE_EQ(*st->double_at(1), 8903.431);
  EXPECT_FALSE(st->int64_at(1));  // 8903.431 is not an integer
  EXPECT_EQ(st->int64_at(2), 0);
  EXPECT_DOUBLE_EQ(*st->double_at(3), 18055.693);
  EXPECT_EQ(st->column_name(1), "computing");
  EXPECT_EQ(st->step(diag), StepResult::kDone);
  EXPECT_EQ(st->step(diag), StepResult::kDone);
  EXPECT_TRUE(diag.empty());
}

TEST(StringIds, LoadsRealTableWithSparseIdRanges) {
  cs::io::Diagnostics diag;
  auto db = Database::open(kProfiler0, diag);
  ASSERT_TRUE(db);
  StringIds ids;
  ASSERT_TRUE(ids.load(*db, diag)) << all_text(diag);
  EXPECT_EQ(ids.size(), 1377u);
  EXPECT_EQ(ids.find(0), "PROFILING_ENABLE");
  EXPECT_EQ(ids.find(3), "KERNEL_AICORE");
  EXPECT_EQ(ids.find(268435456), "Enqueue");
  EXPECT_EQ(ids.find(268435458), "Dequeue@Conv2D");
  EXPECT_FALSE(ids.find(406));
  EXPECT_FALSE(ids.find(-1));
  EXPECT_FALSE(ids.find(1LL << 40));
  EXPECT_EQ(ids.get_or_empty(999999), "");
  EXPECT_TRUE(diag.empty());
}

TEST(StringIds, EveryStringIdOfComputeTaskInfoResolves) {
  // Invariant of a good export: every name id in COMPUTE_TASK_INFO is in STRING_IDS.
  cs::io::Diagnostics diag;
  auto db = Database::open(kProfiler0, diag);
  ASSERT_TRUE(db);
  StringIds ids;
  ASSERT_TRUE(ids.load(*db, diag));
  auto st = db->prepare("SELECT name, opType FROM COMPUTE_TASK_INFO", "COMPUTE_TASK_INFO", diag);
  ASSERT_TRUE(st) << all_text(diag);
  int rows = 0;
  while (st->step(diag) == StepResult::kRow) {
    ++rows;
    EXPECT_TRUE(ids.find(*st->int64_at(0)));
    EXPECT_TRUE(ids.find(*st->int64_at(1)));
  }
  EXPECT_GT(rows, 100);
  EXPECT_TRUE(diag.empty()) << all_text(diag);
}

TEST(Database, Level0AnalysisDbHasOnlyStepTrace) {
  cs::io::Diagnostics diag;
  auto db = Database::open(
      std::string(CS_TEST_DATA) +
          "/ascend-real/db_level0/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db",
      diag);
  ASSERT_TRUE(db) << all_text(diag);
  EXPECT_EQ(db->tables(), std::vector<std::string>{"StepTraceTime"});
  EXPECT_FALSE(db->require("CommAnalyzerTime", {"hccl_op_name"}, diag));
  ASSERT_EQ(diag.error_count(), 1u);
  EXPECT_NE(diag.items()[0].what.find("CommAnalyzerTime"), std::string::npos);
  EXPECT_NE(diag.items()[0].file.find("analysis.db"), std::string::npos);
  EXPECT_FALSE(diag.items()[0].hint.empty());
}

TEST(Database, MissingColumnNamesTableAndColumn) {
  cs::io::Diagnostics diag;
  auto db = Database::open(kProfiler0, diag);
  ASSERT_TRUE(db);
  EXPECT_FALSE(db->require("TASK", {"startNs", "bogusA", "bogusB"}, diag));
  ASSERT_EQ(diag.error_count(), 1u);
  const auto& d = diag.items()[0];
  EXPECT_NE(d.what.find("table TASK"), std::string::npos) << d.what;
  EXPECT_NE(d.what.find("bogusA, bogusB"), std::string::npos) << d.what;
}

TEST(Database, NeverWritesOrLocksTheFile) {
  auto dir = temp_dir("ro");
  std::string path = (dir / "analysis.db").string();
  fs::copy_file(kAnalysis0, path);
  auto before = fs::last_write_time(path);
  // Another process holds an exclusive lock (a profiler still writing): an ordinary reader would
  // get SQLITE_BUSY or wait; an immutable reader does neither.
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &writer), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(writer, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  {
    cs::io::Diagnostics diag;
    auto db = Database::open(path, diag);
    ASSERT_TRUE(db) << all_text(diag);
    auto st = db->prepare("SELECT count(*) FROM CommAnalyzerTime", "CommAnalyzerTime", diag);
    ASSERT_TRUE(st);
    ASSERT_EQ(st->step(diag), StepResult::kRow) << all_text(diag);
    EXPECT_GT(*st->int64_at(0), 0);
    // A write through the reader's handle is refused.
    EXPECT_NE(sqlite3_exec(db->handle(), "CREATE TABLE x(a)", nullptr, nullptr, nullptr),
              SQLITE_OK);
  }
  sqlite3_exec(writer, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(writer);
  EXPECT_EQ(fs::last_write_time(path), before);
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1);  // no journal, no WAL, no shm left beside it
  fs::remove_all(dir);
}

TEST(Database, ReadOnlyFileInReadOnlyDirectory) {
  // The samples are r--r--r--: opening must not need write access.
  auto dir = temp_dir("rodir");
  std::string path = (dir / "p.db").string();
  fs::copy_file(kAnalysis0, path);
  chmod(path.c_str(), 0444);
  chmod(dir.c_str(), 0555);
  cs::io::Diagnostics diag;
  auto db = Database::open(path, diag);
  EXPECT_TRUE(db) << all_text(diag);
  EXPECT_TRUE(db && db->has_table("StepTraceTime"));
  chmod(dir.c_str(), 0755);
  fs::remove_all(dir);
}

TEST(Database, PathWithUriSpecialCharacters) {
  auto dir = temp_dir("uri");
  fs::create_directories(dir / "a?b#c%20d");
  std::string path = (dir / "a?b#c%20d" / "x.db").string();
  fs::copy_file(kAnalysis0, path);
  cs::io::Diagnostics diag;
  auto db = Database::open(path, diag);
  ASSERT_TRUE(db) << all_text(diag);
  EXPECT_TRUE(db->has_table("CommAnalyzerMatrix"));
  fs::remove_all(dir);
}

TEST(Database, MissingFileIsOneError) {
  cs::io::Diagnostics diag;
  auto db = Database::open("/nonexistent/dir/analysis.db", diag);
  EXPECT_FALSE(db);
  ASSERT_EQ(diag.error_count(), 1u);
  EXPECT_EQ(diag.items()[0].file, "/nonexistent/dir/analysis.db");
  EXPECT_FALSE(fs::exists("/nonexistent/dir/analysis.db"));
}

TEST(Database, NotADatabaseIsOneError) {
  auto dir = temp_dir("notadb");
  std::string path = (dir / "analysis.db").string();
  std::ofstream(path) << "step,computing\n50,1.0\n" << std::string(5000, 'x');
  cs::io::Diagnostics diag;
  auto db = Database::open(path, diag);
  EXPECT_FALSE(db);
  ASSERT_EQ(diag.error_count(), 1u);
  EXPECT_NE(diag.items()[0].what.find("not a database"), std::string::npos) << diag.items()[0].what;
  EXPECT_NE(diag.items()[0].hint.find("not an SQLite database"), std::string::npos);
  // An empty file is not a database either (SQLite would treat it as a new, empty one).
  std::ofstream(dir / "empty.db").close();
  cs::io::Diagnostics d2;
  auto e = Database::open((dir / "empty.db").string(), d2);
  EXPECT_TRUE(!e || e->tables().empty());
  fs::remove_all(dir);
}

// Reads every table of `db` to its end; returns how many reads failed.
static int read_all_tables(const Database& db, cs::io::Diagnostics& diag) {
  int failed = 0;
  for (const auto& t : db.tables()) {
    auto st = db.prepare("SELECT * FROM \"" + t + "\"", t, diag);
    if (!st) {
      ++failed;
      continue;
    }
    StepResult r;
    while ((r = st->step(diag)) == StepResult::kRow) {
    }
    if (r == StepResult::kError) ++failed;
  }
  return failed;
}

static std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

TEST(Database, TruncatedFileIsOneErrorAtOpen) {
  auto dir = temp_dir("trunc");
  std::string path = (dir / "ascend_pytorch_profiler_0.db").string();
  std::string bytes = file_bytes(kProfiler0);
  ASSERT_GT(bytes.size(), 200000u);
  std::ofstream(path, std::ios::binary).write(bytes.data(), 200000);
  cs::io::Diagnostics diag;
  auto db = Database::open(path, diag);
  EXPECT_FALSE(db);  // the header's page count is beyond the end: SQLITE_CORRUPT on the schema
  ASSERT_EQ(diag.error_count(), 1u);
  const auto& d = diag.items()[0];
  EXPECT_EQ(d.file, path);
  EXPECT_NE(d.what.find("malformed"), std::string::npos) << d.what;
  EXPECT_NE(d.hint.find("corrupt"), std::string::npos) << d.hint;
  fs::remove_all(dir);
}

TEST(Database, CorruptPagesFailOnReadNamingTheTable) {
  auto dir = temp_dir("corrupt");
  std::string path = (dir / "ascend_pytorch_profiler_0.db").string();
  std::string bytes = file_bytes(kProfiler0);
  // Garbage over the second half of the file (table pages; the schema is at the front).
  for (size_t i = bytes.size() / 2; i < bytes.size(); ++i) bytes[i] = static_cast<char>(0xA5 ^ i);
  std::ofstream(path, std::ios::binary).write(bytes.data(), bytes.size());
  cs::io::Diagnostics diag;
  auto db = Database::open(path, diag);
  ASSERT_TRUE(db) << all_text(diag);
  EXPECT_GT(read_all_tables(*db, diag), 0);
  ASSERT_GT(diag.error_count(), 0u);
  const auto& d = diag.items()[0];
  EXPECT_EQ(d.file, path);
  EXPECT_EQ(d.what.rfind("table ", 0), 0u) << d.what;
  EXPECT_NE(d.hint.find("corrupt"), std::string::npos) << d.hint;
  fs::remove_all(dir);
}

TEST(Database, NullsAndTextWhereNumbersBelong) {
  auto dir = temp_dir("nulls");
  std::string path = (dir / "n.db").string();
  make_db(path,
          "CREATE TABLE T(a INTEGER, b NUMERIC, c TEXT);"
          "INSERT INTO T VALUES(NULL, NULL, NULL);"
          "INSERT INTO T VALUES(7, 2.5, 'x7');"
          "INSERT INTO T VALUES('12', '3.25', '');");
  cs::io::Diagnostics diag;
  auto db = Database::open(path, diag);
  ASSERT_TRUE(db);
  auto st = db->prepare("SELECT a, b, c FROM T ORDER BY rowid", "T", diag);
  ASSERT_TRUE(st);
  ASSERT_EQ(st->step(diag), StepResult::kRow);
  EXPECT_TRUE(st->is_null(0));
  EXPECT_FALSE(st->int64_at(0));
  EXPECT_FALSE(st->double_at(1));
  EXPECT_EQ(st->text_at(2), "");
  ASSERT_EQ(st->step(diag), StepResult::kRow);
  EXPECT_EQ(st->int64_at(0), 7);
  EXPECT_DOUBLE_EQ(*st->double_at(1), 2.5);
  EXPECT_FALSE(st->int64_at(2));
  EXPECT_FALSE(st->double_at(2));
  ASSERT_EQ(st->step(diag), StepResult::kRow);
  EXPECT_EQ(st->int64_at(0), 12);
  EXPECT_DOUBLE_EQ(*st->double_at(1), 3.25);
  EXPECT_FALSE(st->int64_at(2));
  EXPECT_EQ(st->step(diag), StepResult::kDone);
  EXPECT_TRUE(diag.empty());
  fs::remove_all(dir);
}

TEST(StringIds, MissingTableOrBadRows) {
  auto dir = temp_dir("sids");
  std::string nostr = (dir / "nostr.db").string();
  make_db(nostr, "CREATE TABLE TASK(startNs INTEGER);");
  cs::io::Diagnostics diag;
  auto db = Database::open(nostr, diag);
  ASSERT_TRUE(db);
  StringIds ids;
  EXPECT_FALSE(ids.load(*db, diag));
  ASSERT_EQ(diag.error_count(), 1u);
  EXPECT_NE(diag.items()[0].what.find("STRING_IDS"), std::string::npos);

  std::string bad = (dir / "bad.db").string();
  make_db(bad,
          "CREATE TABLE STRING_IDS(id INTEGER, value TEXT);"
          "INSERT INTO STRING_IDS VALUES(0,'a'),(NULL,'b'),(-3,'c'),(2,'z'),(9000000000,'far');");
  cs::io::Diagnostics d2;
  auto db2 = Database::open(bad, d2);
  ASSERT_TRUE(db2);
  ASSERT_TRUE(ids.load(*db2, d2));
  EXPECT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids.find(0), "a");
  EXPECT_FALSE(ids.find(1));
  EXPECT_EQ(ids.find(2), "z");
  EXPECT_EQ(ids.find(9000000000LL), "far");
  EXPECT_EQ(d2.error_count(), 0u);
  EXPECT_EQ(d2.warning_count(), 1u);
  fs::remove_all(dir);
}

// An absolute path is used as given (SQLite's own VFS would lstat() every component to resolve
// links: six system calls per file); the file behind a linked directory still reads, and a
// relative path is still made absolute.
TEST(Database, AbsolutePathIsNotResolvedComponentByComponent) {
  auto dir = temp_dir("link");
  fs::create_directories(dir / "real");
  fs::copy_file(kAnalysis0, dir / "real" / "analysis.db");
  fs::create_directory_symlink(dir / "real", dir / "link");
  const std::string path = (dir / "link" / "analysis.db").string();
  cs::io::Diagnostics diag;
  auto db = Database::open(path, diag);
  ASSERT_TRUE(db) << all_text(diag);
  EXPECT_EQ(std::string(sqlite3_db_filename(db->handle(), "main")), path);
  auto st = db->prepare("SELECT count(*) FROM CommAnalyzerTime", "CommAnalyzerTime", diag);
  ASSERT_TRUE(st);
  ASSERT_EQ(st->step(diag), StepResult::kRow) << all_text(diag);
  EXPECT_GT(*st->int64_at(0), 0);
  const fs::path cwd = fs::current_path();
  fs::current_path(dir / "real");
  auto rel = Database::open("analysis.db", diag);
  fs::current_path(cwd);
  ASSERT_TRUE(rel) << all_text(diag);
  EXPECT_EQ(std::string(sqlite3_db_filename(rel->handle(), "main")),
            (fs::canonical(dir / "real") / "analysis.db").string());
  fs::remove_all(dir);
}

// SQLite keeps no memory statistics (one global mutex on every allocation of every connection,
// which the threads reading ranks would wait on): the first Database::open turns them off.
TEST(DatabaseOpen, SqliteKeepsNoMemoryStatistics) {
  cs::io::Diagnostics diag;
  auto db = Database::open(kAnalysis0, diag);
  ASSERT_TRUE(db.has_value()) << diag.items().front().to_string();
  // SQLite opens the file when a query needs it: this one does (and parses the schema).
  auto st = db->prepare("SELECT count(*) FROM CommAnalyzerTime WHERE 1", "CommAnalyzerTime", diag);
  ASSERT_TRUE(st && !st->paged());
  ASSERT_EQ(st->step(diag), StepResult::kRow);
  sqlite3_int64 current = -1, highwater = -1;
  ASSERT_EQ(sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &current, &highwater, 0), SQLITE_OK);
  EXPECT_EQ(current, 0);  // with statistics, the open connection's schema alone is kilobytes
  EXPECT_EQ(highwater, 0);
}
