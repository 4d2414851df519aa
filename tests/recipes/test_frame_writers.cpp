// recipes/frame/frame_writers.h, the SQLite writer: the database is built in memory and its image
// written in one piece, which must give the very bytes SQLite gives writing the file itself
// (what MindStudio Insight and sqlite3 read), keep the tables already there, and leave the file
// as it was when it cannot be written.
#include "recipes/frame/frame_writers.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "io/output_file.h"
#include "recipes/recipe_test_util.h"
#include "support/test_files.h"

namespace cs::recipes {
namespace {

Frame sample_frame(int rows, bool with_index) {
  Frame f;
  auto& key = f.add("key");
  auto& count = f.add("count");
  auto& mean = f.add("mean");
  auto& name = f.add("name");
  auto& mixed = f.add("mixed");
  for (int r = 0; r < rows; ++r) {
    key.push_back(Cell::text("group_" + std::to_string(r % 7)));
    count.push_back(Cell::integer(r * 1000003LL));
    mean.push_back(r % 5 == 0 ? Cell::real(std::nan("")) : Cell::real(r / 3.0));
    name.push_back(r % 9 == 0 ? Cell::null() : Cell::text("hcom_allReduce__" + std::to_string(r)));
    mixed.push_back(r % 2 ? Cell::integer(r) : Cell::real(r + 0.5));
  }
  f.index_columns = with_index ? 1 : 0;
  return f;
}

// Replays table `table` of `src` into `dst` as SQLite writing a file does it, in one transaction
// like the writer's: its CREATE TABLE and CREATE INDEX statements, then its rows in rowid order
// with each value's storage class.
void replay_table(sqlite3* src, sqlite3* dst, const std::string& table) {
  ASSERT_EQ(sqlite3_exec(dst, "PRAGMA journal_mode=MEMORY; BEGIN", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(src,
                               "SELECT sql FROM sqlite_master WHERE tbl_name = ?1 ORDER BY "
                               "type = 'index', rowid",
                               -1, &st, nullptr),
            SQLITE_OK);
  sqlite3_bind_text(st, 1, table.c_str(), -1, SQLITE_TRANSIENT);
  while (sqlite3_step(st) == SQLITE_ROW)
    ASSERT_EQ(sqlite3_exec(dst, reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), nullptr,
                           nullptr, nullptr),
              SQLITE_OK);
  sqlite3_finalize(st);
  ASSERT_EQ(sqlite3_prepare_v2(src, ("SELECT * FROM \"" + table + "\" ORDER BY rowid").c_str(), -1,
                               &st, nullptr),
            SQLITE_OK);
  const int n = sqlite3_column_count(st);
  std::string insert = "INSERT INTO \"" + table + "\" VALUES (";
  for (int i = 0; i < n; ++i) insert += i ? ",?" : "?";
  sqlite3_stmt* ins = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(dst, (insert + ")").c_str(), -1, &ins, nullptr), SQLITE_OK);
  while (sqlite3_step(st) == SQLITE_ROW) {
    for (int i = 0; i < n; ++i) sqlite3_bind_value(ins, i + 1, sqlite3_column_value(st, i));
    ASSERT_EQ(sqlite3_step(ins), SQLITE_DONE);
    sqlite3_reset(ins);
  }
  sqlite3_finalize(ins);
  sqlite3_finalize(st);
  ASSERT_EQ(sqlite3_exec(dst, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
}

TEST(FrameSqliteWriter, TheSameBytesAsSQLiteWritingTheFileAndEarlierTablesKept) {
  test::TempDir t("cs_frame_writer");
  const std::string path = t.str() + "/cluster_analysis.db";
  io::Diagnostics diag;
  // Several thousand rows: the database spans many pages (B-tree interior pages, overflow of
  // the page cache SQLite would have spilled to the file).
  ASSERT_TRUE(write_frame_sqlite(sample_frame(20000, false), path, "First", diag));
  ASSERT_TRUE(write_frame_sqlite(sample_frame(3000, true), path, "Second", diag));
  EXPECT_FALSE(diag.has_errors());
  const std::string reference = t.str() + "/reference.db";
  sqlite3* src = nullptr;
  sqlite3* dst = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &src, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_open(reference.c_str(), &dst), SQLITE_OK);
  replay_table(src, dst, "First");
  replay_table(src, dst, "Second");
  sqlite3_close(src);
  sqlite3_close(dst);
  const std::string written = test::slurp(path), expected = test::slurp(reference);
  EXPECT_GT(written.size(), size_t{400} * 1024);
  EXPECT_TRUE(written == expected) << "the image differs from SQLite's own file";
  const std::string dump = test::dump_sqlite(path);
  EXPECT_NE(dump.find("CREATE TABLE \"First\""), std::string::npos) << dump.substr(0, 400);
  EXPECT_NE(dump.find("CREATE INDEX \"ix_Second_key\""), std::string::npos) << dump.substr(0, 400);
}

TEST(FrameSqliteWriter, ATableWrittenAgainIsReplaced) {
  test::TempDir t("cs_frame_writer");
  const std::string path = t.str() + "/out.db";
  io::Diagnostics diag;
  ASSERT_TRUE(write_frame_sqlite(sample_frame(50, false), path, "T", diag));
  ASSERT_TRUE(write_frame_sqlite(sample_frame(4, false), path, "T", diag));
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM T", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), 4);
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST(FrameSqliteWriter, ANonDatabaseIsOneErrorNamingTheFinalFileAndLeftAsItWas) {
  test::TempDir t("cs_frame_writer");
  const std::string final_path = t.str() + "/cluster_analysis.db";
  const std::string tmp = io::temporary_name(final_path);
  const std::string junk(8192, 'x');
  test::write_file(tmp, junk);
  io::Diagnostics diag;
  EXPECT_FALSE(write_frame_sqlite(sample_frame(10, false), tmp, "T", diag));
  ASSERT_EQ(diag.items().size(), 1u) << test::all_diags(diag);
  EXPECT_EQ(diag.items()[0].file, final_path);
  EXPECT_EQ(test::slurp(tmp), junk);
}

TEST(FrameSqliteWriter, AMissingDirectoryIsOneErrorNamingTheFile) {
  test::TempDir t("cs_frame_writer");
  const std::string path = t.str() + "/no/such/dir/out.db";
  io::Diagnostics diag;
  EXPECT_FALSE(write_frame_sqlite(sample_frame(10, false), path, "T", diag));
  ASSERT_EQ(diag.items().size(), 1u) << test::all_diags(diag);
  EXPECT_EQ(diag.items()[0].file, path);
  EXPECT_NE(diag.items()[0].what.find("cannot write the database"), std::string::npos)
      << test::all_diags(diag);
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace cs::recipes
