// A profiler database copied while its writer still had it open keeps committed rows in a -wal
// file beside it. clusterscope must read them, as msprof-analyze (any SQLite reader) does, without
// writing anything into the input (no -shm, no checkpoint), or refuse the rank with one line
// naming the file and the fix: never a silently stale answer.
//
// The job: tests/data/ascend-real/db_level1 with each database's first 100 bytes replaced by its
// WAL-mode header and its -wal beside it (tests/data/wal/README.md). Expected outputs: what
// msprof-analyze wrote for exactly that job (tests/data/wal/msprof-analyze-ref).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "support/test_data.h"

namespace fs = std::filesystem;
using cs::test::read_file;
using cs::test::run_command;

namespace {

using cs::test::kDataDir;

// The WAL job assembled under `root`/job; returns its path.
fs::path assemble_wal_job(const fs::path& root) {
  const fs::path job = root / "job";
  fs::copy(kDataDir / "ascend-real/db_level1", job, fs::copy_options::recursive);
  const fs::path wal = kDataDir / "wal/db_level1";
  int dbs = 0;
  for (const auto& e : fs::recursive_directory_iterator(wal)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || !name.ends_with(".db.header")) continue;
    const fs::path rel = fs::relative(e.path(), wal);
    const fs::path db = job / rel.parent_path() / name.substr(0, name.size() - 7);
    const std::string header = read_file(e.path());
    EXPECT_EQ(header.size(), 100u) << e.path();
    std::fstream f(db, std::ios::in | std::ios::out | std::ios::binary);
    f.write(header.data(), static_cast<std::streamsize>(header.size()));
    f.close();
    fs::copy_file(e.path().parent_path() / (db.filename().string() + "-wal"), db.string() + "-wal");
    ++dbs;
  }
  EXPECT_EQ(dbs, 4);
  return job;
}

// Every file below `dir`: its size, modification time (ns) and bytes.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    struct stat st {};
    ::lstat(e.path().c_str(), &st);
    std::string v = std::to_string(st.st_size) + "@" + std::to_string(st.st_mtim.tv_sec) + "." +
                    std::to_string(st.st_mtim.tv_nsec) + ":";
    if (e.is_regular_file()) v += read_file(e.path());
    out[fs::relative(e.path(), dir).string()] = std::move(v);
  }
  return out;
}

// A database's tables as text: "table|column=type:value|..." per row, in rowid order. The
// host's name and the rank directories' paths are left out (the reference was written elsewhere).
std::vector<std::string> dump_db(const fs::path& path) {
  std::vector<std::string> out;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "cannot open " << path;
    sqlite3_close(db);
    return out;
  }
  std::vector<std::string> tables;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT name, sql FROM sqlite_master WHERE type='table' ORDER BY rowid",
                     -1, &st, nullptr);
  while (sqlite3_step(st) == SQLITE_ROW) {
    tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    out.push_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 1)));
  }
  sqlite3_finalize(st);
  for (const std::string& t : tables) {
    const std::string q = "SELECT * FROM \"" + t + "\" ORDER BY rowid";
    sqlite3_prepare_v2(db, q.c_str(), -1, &st, nullptr);
    while (sqlite3_step(st) == SQLITE_ROW) {
      std::string row = t;
      for (int i = 0; i < sqlite3_column_count(st); ++i) {
        const std::string col = sqlite3_column_name(st, i);
        row += "|" + col + "=";
        if (col == "hostName" || col == "profilePath") continue;
        char buf[64];
        switch (sqlite3_column_type(st, i)) {
          case SQLITE_INTEGER:
            row += "int:" + std::to_string(sqlite3_column_int64(st, i));
            break;
          case SQLITE_FLOAT:
            std::snprintf(buf, sizeof buf, "real:%.17g", sqlite3_column_double(st, i));
            row += buf;
            break;
          case SQLITE_NULL:
            row += "null";
            break;
          default:
            row += std::string("text:") + reinterpret_cast<const char*>(sqlite3_column_text(st, i));
        }
      }
      out.push_back(std::move(row));
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return out;
}

// Every file of `expected` is in `got` with the same content (CSV byte for byte, databases
// table for table); with `exactly`, `got` has no other file (`-m all` also writes clusterscope's
// own tables).
void expect_same_outputs(const fs::path& got, const fs::path& expected, bool exactly) {
  std::map<std::string, fs::path> g, e;
  for (const auto& [dir, m] : {std::pair{got, &g}, std::pair{expected, &e}})
    for (const auto& f : fs::recursive_directory_iterator(dir))
      if (f.is_regular_file() && f.path().filename() != ".clusterscope_written")
        (*m)[fs::relative(f.path(), dir).string()] = f.path();
  if (exactly) {
    ASSERT_EQ(g.size(), e.size()) << got;
  }
  for (const auto& [name, path] : e) {
    ASSERT_TRUE(g.count(name)) << name << " not written";
    if (path.extension() == ".db")
      EXPECT_EQ(dump_db(g[name]), dump_db(path)) << name;
    else
      EXPECT_EQ(read_file(g[name]), read_file(path)) << name;
  }
}

struct Case {
  const char* mode;
  const char* args;
  const char* ref;
};

class WalInputs : public ::testing::TestWithParam<Case> {};

TEST_P(WalInputs, CommittedWalRowsAreReadAndNothingIsWritten) {
  const Case c = GetParam();
  const fs::path root = cs::test::temp_dir(std::string("wal-") + c.mode);
  const fs::path job = assemble_wal_job(root);
  const auto before = snapshot(job);
  const fs::path out = root / "out";
  const fs::path log = root / "log.txt";
  const fs::path tmp = root / "tmp";
  fs::create_directories(tmp);
  ASSERT_EQ(
      run_command("TMPDIR=" + tmp.string() + " " + std::string(CS_BINARY) + " cluster -q -d " +
                      job.string() + " -o " + out.string() + " -m " + c.mode + " " + c.args,
                  log.string()),
      0)
      << read_file(log);
  // Not one byte or modification time of the input changed, and nothing was added (-shm).
  EXPECT_EQ(snapshot(job), before);
  expect_same_outputs(out / "cluster_analysis_output", kDataDir / "wal/msprof-analyze-ref" / c.ref,
                      std::string(c.mode) != "all");
  // The private copies were made in $TMPDIR and removed.
  EXPECT_TRUE(fs::is_empty(tmp));
  fs::remove_all(root);
}

INSTANTIATE_TEST_SUITE_P(Modes, WalInputs,
                         ::testing::Values(Case{"communication_time_sum", "--export_type text",
                                                "communication_time_sum__text"},
                                           Case{"hccl_sum", "--export_type text", "hccl_sum__text"},
                                           Case{"all", "", "all"}),
                         [](const auto& info) { return std::string(info.param.mode); });

// With nowhere to make the private copy, the ranks are refused, each with one line naming its
// file and the fix; no stale row is written.
TEST(WalInputsRefused, NoPrivateCopyMeansTheRankIsRefusedWithTheFix) {
  const fs::path root = cs::test::temp_dir("wal-refused");
  const fs::path job = assemble_wal_job(root);
  const auto before = snapshot(job);
  const fs::path out = root / "out";
  const fs::path log = root / "log.txt";
  const int rc = run_command(
      "TMPDIR=" + (root / "missing").string() + " " + std::string(CS_BINARY) + " cluster -q -d " +
          job.string() + " -o " + out.string() + " -m communication_time_sum --export_type text",
      log.string());
  const std::string text = read_file(log);
  EXPECT_NE(rc, 0) << text;
  EXPECT_NE(text.find("rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db"), std::string::npos)
      << text;
  EXPECT_NE(text.find("'PRAGMA wal_checkpoint'"), std::string::npos) << text;
  // The stale answer (the database without its WAL) is nowhere.
  const fs::path csv =
      out / "cluster_analysis_output/CommunicationTimeSum/cluster_communication_time.csv";
  if (fs::exists(csv)) {
    EXPECT_EQ(read_file(csv).find("2.1803235625"), std::string::npos) << read_file(csv);
  }
  EXPECT_EQ(snapshot(job), before);
  fs::remove_all(root);
}

}  // namespace
