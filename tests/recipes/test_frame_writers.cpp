// msprof_analyze/recipes/frame_writers.h, the SQLite writer: a table SQLite would store unchanged
// is written straight into the file's pages (msprof_analyze/recipes/frame_sqlite_direct.h), and
// must read back exactly as SQLite's own table; others go through SQLite. Tables already there are
// kept; a file that cannot be written is one error and left as it was.
#include "msprof_analyze/recipes/frame_writers.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "io/output_file.h"
#include "msprof_analyze/recipes/frame_sqlite_direct.h"
#include "recipes/recipe_test_util.h"
#include "support/test_files.h"

namespace cs::recipes {
namespace {

frame::Frame sample_frame(int rows, bool with_index) {
  frame::Frame f;
  auto& key = f.add("key");
  auto& count = f.add("count");
  auto& mean = f.add("mean");
  auto& name = f.add("name");
  auto& mixed = f.add("mixed");
  for (int r = 0; r < rows; ++r) {
    key.push_back(frame::Cell::text("group_" + std::to_string(r % 7)));
    count.push_back(frame::Cell::integer(r * 1000003LL));
    mean.push_back(r % 5 == 0 ? frame::Cell::real(std::nan("")) : frame::Cell::real(r / 3.0));
    name.push_back(r % 9 == 0 ? frame::Cell::null()
                              : frame::Cell::text("hcom_allReduce__" + std::to_string(r)));
    mixed.push_back(r % 2 ? frame::Cell::integer(r) : frame::Cell::real(r + 0.5));
  }
  f.index_columns = with_index ? 1 : 0;
  return f;
}

// A frame every cell of which SQLite stores as it is: texts, integers, reals (NaN, -0.0, whole
// and large values), integers in a float column, NULLs.
frame::Frame plain_frame(int rows) {
  frame::Frame f;
  auto& key = f.add("key");
  auto& count = f.add("count");
  auto& mean = f.add("mean");
  auto& name = f.add("name");
  auto& whole = f.add("whole");
  for (int r = 0; r < rows; ++r) {
    key.push_back(frame::Cell::text("group_" + std::to_string(r % 7)));
    count.push_back(frame::Cell::integer(r * 1000003LL - 5000000));
    const double means[] = {std::nan(""), -0.0, 3.0, 1e17, -2.5e-7, r / 3.0};
    mean.push_back(frame::Cell::real(means[r % 6]));
    name.push_back(r % 9 == 0 ? frame::Cell::null()
                              : frame::Cell::text("hcom_allReduce__" + std::to_string(r)));
    whole.push_back(r % 2 ? frame::Cell::integer(r) : frame::Cell::real(r + 0.5));
  }
  return f;
}

// The frame's table as SQLite itself stores it: the same CREATE statement, each cell bound as
// the writer's SQLite path binds it (NaN as NULL, integers of a float column as doubles).
void sqlite_reference(const frame::Frame& f, const std::string& create, const std::string& path) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, ("BEGIN;" + create).c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  std::string insert = "INSERT INTO T VALUES (";
  for (size_t c = 0; c < f.columns.size(); ++c) insert += c ? ",?" : "?";
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, (insert + ")").c_str(), -1, &st, nullptr), SQLITE_OK);
  for (size_t r = 0; r < f.rows(); ++r) {
    for (size_t c = 0; c < f.columns.size(); ++c) {
      const frame::Cell& cell = f.columns[c].cells[r];
      const int i = static_cast<int>(c) + 1;
      if (cell.kind == frame::Cell::Kind::kText) {
        sqlite3_bind_text(st, i, cell.str().c_str(), -1, SQLITE_TRANSIENT);
      } else if (cell.kind == frame::Cell::Kind::kInt &&
                 f.columns[c].dtype() != frame::Dtype::kFloat64) {
        sqlite3_bind_int64(st, i, cell.i());
      } else if (cell.is_number() && !std::isnan(cell.num())) {
        sqlite3_bind_double(st, i, cell.num());
      } else {
        sqlite3_bind_null(st, i);
      }
    }
    ASSERT_EQ(sqlite3_step(st), SQLITE_DONE);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  ASSERT_EQ(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

std::string query_one(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string out = "(none)";
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
      out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return out;
}

TEST(FrameSqliteWriter, TablesWrittenStraightIntoTheFileReadBackAsSQLiteStoresThem) {
  test::TempDir t("cs_frame_writer");
  const std::string path = t.str() + "/cluster_analysis.db";
  // Thousands of rows: many leaf pages and interior pages; then a second table after it.
  const frame::Frame f = plain_frame(20000);
  io::Diagnostics diag;
  ASSERT_TRUE(recipes::write_frame_sqlite(f, path, "T", diag));
  ASSERT_TRUE(recipes::write_frame_sqlite(plain_frame(3), path, "Second", diag));
  EXPECT_FALSE(diag.has_errors()) << test::all_diags(diag);
  EXPECT_EQ(query_one(path, "PRAGMA integrity_check"), "ok");
  const std::string create = query_one(path, "SELECT sql FROM sqlite_master WHERE name = 'T'");
  EXPECT_EQ(create,
            "CREATE TABLE \"T\" (\n\"key\" TEXT,\n  \"count\" INTEGER,\n  \"mean\" REAL,\n  "
            "\"name\" TEXT,\n  \"whole\" REAL\n)");
  const std::string reference = t.str() + "/reference.db";
  sqlite_reference(f, create, reference);
  const std::string got = test::dump_sqlite(path), want = test::dump_sqlite(reference);
  const size_t second = got.find("CREATE TABLE \"Second\"");
  ASSERT_NE(second, std::string::npos) << got.substr(0, 400);
  // The same tables (the dump lists each value's storage class), apart from the second table.
  std::string got_t = got;
  got_t.erase(second, got.find("\n)\n", second) + 3 - second);
  got_t.erase(got_t.find("== Second"), got_t.find("== T") - got_t.find("== Second"));
  EXPECT_TRUE(got_t == want) << got_t.substr(0, 600) << "\n---\n" << want.substr(0, 600);
  EXPECT_NE(want.find("|r:0|"), std::string::npos) << "SQLite stores -0.0 as 0";
  // write_frame_sqlite took the direct path: called alone it writes the same table.
  const std::string direct = t.str() + "/direct.db";
  ASSERT_EQ(recipes::write_frame_sqlite_direct(f, {"TEXT", "INTEGER", "REAL", "TEXT", "REAL"},
                                               direct, "T", create, direct, diag),
            recipes::DirectWrite::kWritten);
  EXPECT_TRUE(test::dump_sqlite(direct) == want);
  // Whole REALs are stored as SQLite stores them (as integers): the file is no larger.
  EXPECT_LE(std::filesystem::file_size(path), std::filesystem::file_size(reference) + 4096 * 2);
}

TEST(FrameSqliteWriter, ATableEncodedOnSeveralThreadsIsTheSameFile) {
  // Rows encoded in blocks on other threads and added in order: the file does not depend on the
  // thread count (blocks of 1,024 rows; 50,000 rows make many, with pages spilled meanwhile).
  test::TempDir t("cs_frame_writer");
  const frame::Frame f = plain_frame(50000);
  std::string files[3];
  const int threads[] = {1, 2, 5};
  for (int k = 0; k < 3; ++k) {
    const std::string path = t.str() + "/t" + std::to_string(threads[k]) + ".db";
    io::Diagnostics diag;
    ASSERT_TRUE(recipes::write_frame_sqlite(f, path, "T", diag, threads[k]));
    ASSERT_TRUE(recipes::write_frame_sqlite(plain_frame(3), path, "Second", diag, threads[k]));
    EXPECT_FALSE(diag.has_errors()) << test::all_diags(diag);
    EXPECT_EQ(query_one(path, "SELECT count(*) FROM T"), "50000");
    files[k] = test::slurp(path);
  }
  EXPECT_GT(files[0].size(), size_t{2} << 20);
  EXPECT_TRUE(files[1] == files[0]) << "2 threads";
  EXPECT_TRUE(files[2] == files[0]) << "5 threads";
}

TEST(FrameSqliteWriter, TablesSQLiteWouldConvertOrIndexAreWrittenBySQLite) {
  test::TempDir t("cs_frame_writer");
  const std::string path = t.str() + "/out.db";
  io::Diagnostics diag;
  // "mixed" holds texts and integers: a TEXT column, whose integers SQLite turns into text.
  frame::Frame mixed = sample_frame(100, false);
  for (size_t r = 0; r < mixed.rows(); r += 2) mixed.columns[4].cells[r] = frame::Cell::text("x");
  EXPECT_EQ(recipes::write_frame_sqlite_direct(mixed, {"TEXT", "INTEGER", "REAL", "TEXT", "TEXT"},
                                               path, "M", "CREATE TABLE \"M\" (a)", path, diag),
            recipes::DirectWrite::kNotApplicable);
  frame::Frame indexed = plain_frame(10);
  indexed.index_columns = 1;
  EXPECT_EQ(recipes::write_frame_sqlite_direct(indexed, {"TEXT", "INTEGER", "REAL", "TEXT", "REAL"},
                                               path, "I", "CREATE TABLE \"I\" (a)", path, diag),
            recipes::DirectWrite::kNotApplicable);
  EXPECT_FALSE(std::filesystem::exists(path));
  ASSERT_TRUE(recipes::write_frame_sqlite(mixed, path, "M", diag));
  ASSERT_TRUE(recipes::write_frame_sqlite(indexed, path, "I", diag));
  EXPECT_FALSE(diag.has_errors()) << test::all_diags(diag);
  EXPECT_EQ(query_one(path, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(query_one(path, "SELECT typeof(mixed) || mixed FROM M WHERE rowid = 2"), "text1");
  EXPECT_EQ(query_one(path, "SELECT name FROM sqlite_master WHERE type = 'index'"), "ix_I_key");
}

// Many tables in one call (a reduce writing a table per rank): the same tables as writing them
// one by one, those past the room on the schema page through SQLite with the file read and
// written once; a mix of tables SQLite would store as they are and tables it would convert.
TEST(FrameSqliteWriter, ManyTablesAtOnceAreTheTablesWrittenOneByOne) {
  test::TempDir t("cs_frame_writer");
  const std::string one = t.str() + "/one.db", many = t.str() + "/many.db";
  std::vector<frame::Frame> frames;
  for (int k = 0; k < 40; ++k)
    frames.push_back(k % 3 == 2 ? sample_frame(20 + k, k % 2 == 0) : plain_frame(10 + k));
  std::vector<std::pair<std::string, const frame::Frame*>> tables;
  io::Diagnostics diag;
  for (size_t k = 0; k < frames.size(); ++k) {
    const std::string name = "TableOfRank" + std::to_string(k);
    tables.emplace_back(name, &frames[k]);
    ASSERT_TRUE(recipes::write_frame_sqlite(frames[k], one, name, diag)) << test::all_diags(diag);
  }
  ASSERT_TRUE(recipes::write_frames_sqlite(tables, many, diag, 2)) << test::all_diags(diag);
  EXPECT_FALSE(diag.has_errors());
  EXPECT_EQ(query_one(many, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(query_one(many, "SELECT count(*) FROM sqlite_master WHERE type = 'table'"), "40");
  const std::string dump = test::dump_sqlite(many);
  EXPECT_NE(dump.find("TableOfRank39"), std::string::npos);
  EXPECT_EQ(dump, test::dump_sqlite(one));
  // Written again, all at once: replaced, not doubled.
  ASSERT_TRUE(recipes::write_frames_sqlite(tables, many, diag, 1));
  EXPECT_EQ(test::dump_sqlite(many), test::dump_sqlite(one));
}

TEST(FrameSqliteWriter, ATableWrittenAgainIsReplaced) {
  test::TempDir t("cs_frame_writer");
  const std::string path = t.str() + "/out.db";
  io::Diagnostics diag;
  ASSERT_TRUE(recipes::write_frame_sqlite(sample_frame(50, false), path, "T", diag));
  ASSERT_TRUE(recipes::write_frame_sqlite(sample_frame(4, false), path, "T", diag));
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
  EXPECT_FALSE(recipes::write_frame_sqlite(sample_frame(10, false), tmp, "T", diag));
  ASSERT_EQ(diag.items().size(), 1u) << test::all_diags(diag);
  EXPECT_EQ(diag.items()[0].file, final_path);
  EXPECT_EQ(test::slurp(tmp), junk);
}

TEST(FrameSqliteWriter, AMissingDirectoryIsOneErrorNamingTheFile) {
  test::TempDir t("cs_frame_writer");
  const std::string path = t.str() + "/no/such/dir/out.db";
  io::Diagnostics diag;
  EXPECT_FALSE(recipes::write_frame_sqlite(sample_frame(10, false), path, "T", diag));
  ASSERT_EQ(diag.items().size(), 1u) << test::all_diags(diag);
  EXPECT_EQ(diag.items()[0].file, path);
  EXPECT_NE(diag.items()[0].what.find("cannot write the database"), std::string::npos)
      << test::all_diags(diag);
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace cs::recipes
