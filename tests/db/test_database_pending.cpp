// A database with committed changes still beside it: a -wal with frames not checkpointed (a copy
// taken while the writer still had it open) or a hot -journal (a copy taken in the middle of a
// transaction). Database reads what any SQLite reader sees (the WAL's rows; the rolled-back
// pages), from a private copy, and never writes into the input's directory; the page reader
// (io/sqlite/page_database, table_reader) declines such a file rather than read stale pages.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "db/database.h"
#include "io/sqlite/page_database.h"
#include "io/sqlite/pending_sidecar.h"
#include "io/sqlite/table_reader.h"

namespace fs = std::filesystem;
using cs::db::Database;
using cs::db::StepResult;

namespace {

fs::path fresh_dir(const std::string& name) {
  fs::path d =
      fs::temp_directory_path() / ("cs_db_pending_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
}

// t(a INTEGER, b TEXT) with 2,000 rows: a = 1..2000, b = 'v' || a (many pages at 512 bytes).
void make_table(sqlite3* db) {
  exec(db, "PRAGMA page_size=512; CREATE TABLE t(a INTEGER, b TEXT);");
  exec(db,
       "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) "
       "INSERT INTO t SELECT i, 'v' || i FROM n;");
}

std::string file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Every file of `dir` with its size, modification time and bytes.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    struct stat st {};
    ::stat(e.path().c_str(), &st);
    out[e.path().filename().string()] = std::to_string(st.st_mtim.tv_sec) + "." +
                                        std::to_string(st.st_mtim.tv_nsec) + ":" +
                                        file_bytes(e.path());
  }
  return out;
}

// sum(a) of table t through Database (the page reader's plain scan or SQLite).
int64_t sum_of_a(const Database& db) {
  cs::io::Diagnostics diag;
  auto st = db.prepare("SELECT a FROM t", "t", diag);
  EXPECT_TRUE(st.has_value());
  if (!st) return -1;
  int64_t sum = 0;
  while (st->step(diag) == StepResult::kRow) sum += *st->int64_at(0);
  EXPECT_FALSE(diag.has_errors());
  return sum;
}

constexpr int64_t kOriginalSum = 2000 * 2001 / 2;

TEST(DatabasePending, CommittedWalFramesAreRead) {
  const fs::path src = fresh_dir("wal_src"), in = fresh_dir("wal_in");
  const std::string db_path = (src / "p.db").string();
  sqlite3* w = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &w), SQLITE_OK);
  make_table(w);
  exec(w, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;");
  exec(w, "UPDATE t SET a = a * 10 WHERE a % 2 = 0;");  // committed, in the WAL only
  // Copied while the writer still has the database open.
  fs::copy_file(db_path, in / "p.db");
  fs::copy_file(db_path + "-wal", in / "p.db-wal");
  sqlite3_close(w);
  const std::string path = (in / "p.db").string();
  EXPECT_EQ(cs::io::sqlite::pending_sidecar(path), path + "-wal");
  EXPECT_FALSE(cs::io::sqlite::PagedDatabase(path).ok());

  const auto before = snapshot(in);
  cs::io::Diagnostics diag;
  auto db = Database::open(path, diag);
  ASSERT_TRUE(db.has_value()) << (diag.empty() ? "" : diag.items()[0].to_string());
  // Even rows times ten: 1,000 even numbers summing to 1,001,000 become 10,010,000.
  EXPECT_EQ(sum_of_a(*db), kOriginalSum - 1001000 + 10010000);
  db.reset();
  EXPECT_EQ(snapshot(in), before);  // no -shm, no checkpoint, no changed mtime
  fs::remove_all(src);
  fs::remove_all(in);
}

TEST(DatabasePending, HotJournalIsRolledBackInTheCopyAndDeclinedByThePageReader) {
  const fs::path src = fresh_dir("journal_src"), in = fresh_dir("journal_in");
  const std::string db_path = (src / "p.db").string();
  sqlite3* w = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &w), SQLITE_OK);
  make_table(w);
  // A transaction larger than the page cache: changed pages are written to the database file
  // before the commit, their originals kept in the journal.
  exec(w, "PRAGMA cache_size=2; BEGIN; UPDATE t SET a = a + 1000000;");
  ASSERT_TRUE(fs::exists(db_path + "-journal"));
  fs::copy_file(db_path, in / "p.db");
  fs::copy_file(db_path + "-journal", in / "p.db-journal");
  exec(w, "ROLLBACK;");
  sqlite3_close(w);
  const std::string path = (in / "p.db").string();
  ASSERT_EQ(cs::io::sqlite::pending_sidecar(path), path + "-journal");
  // The page reader and table_reader decline the half-written file.
  EXPECT_FALSE(cs::io::sqlite::PagedDatabase(path).ok());
  std::vector<std::string> columns;
  EXPECT_EQ(
      cs::io::sqlite::read_table(
          path, "t", columns, [](const std::vector<cs::io::sqlite::StoredValue>&) { return true; }),
      cs::io::sqlite::TableRead::kDeclined);

  const auto before = snapshot(in);
  cs::io::Diagnostics diag;
  auto db = Database::open(path, diag);
  ASSERT_TRUE(db.has_value()) << (diag.empty() ? "" : diag.items()[0].to_string());
  EXPECT_EQ(sum_of_a(*db), kOriginalSum);  // what SQLite sees: the transaction never happened
  db.reset();
  EXPECT_EQ(snapshot(in), before);
  fs::remove_all(src);
  fs::remove_all(in);
}

TEST(DatabasePending, EmptyWalIsNotPending) {
  const fs::path in = fresh_dir("empty_wal");
  const std::string path = (in / "p.db").string();
  sqlite3* w = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &w), SQLITE_OK);
  make_table(w);
  sqlite3_close(w);
  std::ofstream(path + "-wal").flush();
  EXPECT_EQ(cs::io::sqlite::pending_sidecar(path), "");
  EXPECT_TRUE(cs::io::sqlite::PagedDatabase(path).ok());
  fs::remove_all(in);
}

}  // namespace
