// io/sqlite/table_reader: a table read straight from the file's pages gives what SQLite's
// `SELECT * FROM t` gives (every value and storage class, rowid order), on files SQLite wrote
// with every page size, deep trees and overflow pages; and it declines what it does not read.
#include "io/sqlite/table_reader.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/sqlite_exec.h"
#include "support/test_files.h"

namespace cs::io::sqlite {
namespace {

using test::sqlite_exec;

// Every row of `table` as text: "kind:value|..." per row, from SQLite.
std::vector<std::string> by_sqlite(const std::string& path, const std::string& table) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, ("SELECT * FROM " + table).c_str(), -1, &st, nullptr),
            SQLITE_OK);
  std::vector<std::string> out;
  while (sqlite3_step(st) == SQLITE_ROW) {
    std::string r;
    for (int c = 0; c < sqlite3_column_count(st); ++c) {
      switch (sqlite3_column_type(st, c)) {
        case SQLITE_NULL:
          r += "n|";
          break;
        case SQLITE_INTEGER:
          r += "i" + std::to_string(sqlite3_column_int64(st, c)) + "|";
          break;
        case SQLITE_FLOAT: {
          char buf[40];
          std::snprintf(buf, sizeof buf, "r%.17g|", sqlite3_column_double(st, c));
          r += buf;
          break;
        }
        default:
          r += (sqlite3_column_type(st, c) == SQLITE_TEXT ? "t" : "b") +
               std::string(static_cast<const char*>(sqlite3_column_blob(st, c)),
                           static_cast<size_t>(sqlite3_column_bytes(st, c))) +
               "|";
      }
    }
    out.push_back(r);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

// The same, from the pages.
TableRead by_pages(const std::string& path, const std::string& table,
                   std::vector<std::string>& rows, std::vector<std::string>& columns) {
  rows.clear();
  return read_table(path, table, columns, [&](const std::vector<StoredValue>& v) {
    std::string r;
    for (const auto& x : v) {
      switch (x.kind) {
        case StoredValue::Kind::kNull:
          r += "n|";
          break;
        case StoredValue::Kind::kInt:
          r += "i" + std::to_string(x.i) + "|";
          break;
        case StoredValue::Kind::kReal: {
          char buf[40];
          std::snprintf(buf, sizeof buf, "r%.17g|", x.r);
          r += buf;
          break;
        }
        default:
          r += (x.kind == StoredValue::Kind::kText ? "t" : "b") + std::string(x.bytes) + "|";
      }
    }
    rows.push_back(r);
    return true;
  });
}

class SqliteTableReaderPageSize : public testing::TestWithParam<int> {};

TEST_P(SqliteTableReaderPageSize, EveryRowAsSqliteReadsIt) {
  test::TempDir t("cs_sqlite_reader");
  const std::string path = t.str() + "/x.db";
  // Integers of every width, reals, texts and blobs from empty to several overflow pages, NULLs,
  // rows with fewer values than columns (ADD COLUMN), enough rows for interior pages.
  std::string sql = "PRAGMA page_size=" + std::to_string(GetParam()) +
                    "; CREATE TABLE Other(a); CREATE TABLE \"Meta_Data\" (name TEXT,value TEXT);"
                    "BEGIN;";
  const char* values[] = {"0",
                          "1",
                          "-1",
                          "127",
                          "-129",
                          "32768",
                          "-8388609",
                          "2147483648",
                          "-140737488355329",
                          "9223372036854775807",
                          "-9223372036854775808",
                          "0.5",
                          "-1e300",
                          "NULL",
                          "x'00ff10'",
                          "''"};
  int k = 0;
  for (const char* v : values)
    sql += "INSERT INTO Meta_Data VALUES ('v" + std::to_string(k++) + "', " + v + ");";
  for (int len : {100, 470, 4000, 4100, 20000, 70000, 300000})
    sql += "INSERT INTO Meta_Data VALUES ('long', printf('%.*c', " + std::to_string(len) +
           ", 'z') || 'end');";
  sql +=
      "WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s WHERE value < "
      "3000) INSERT INTO Meta_Data SELECT 'row' || value, value * 3 FROM s;";
  sql +=
      "COMMIT; ALTER TABLE Meta_Data ADD COLUMN extra; INSERT INTO Meta_Data VALUES "
      "('after', 'alter', 7);";
  sqlite_exec(path, sql);
  std::vector<std::string> rows, columns;
  ASSERT_EQ(by_pages(path, "META_DATA", rows, columns), TableRead::kRead);
  EXPECT_EQ(columns, (std::vector<std::string>{"name", "value", "extra"}));
  const std::vector<std::string> want = by_sqlite(path, "Meta_Data");
  ASSERT_EQ(rows.size(), want.size());
  EXPECT_GT(want.size(), 3000u);
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(rows[i], want[i]) << "row " << i;
  EXPECT_EQ(by_pages(path, "NoSuchTable", rows, columns), TableRead::kNoTable);
}

INSTANTIATE_TEST_SUITE_P(PageSizes, SqliteTableReaderPageSize, testing::Values(512, 4096, 65536));

TEST(SqliteTableReader, StopsWhenAsked) {
  test::TempDir t("cs_sqlite_reader");
  const std::string path = t.str() + "/x.db";
  sqlite_exec(path, "CREATE TABLE T(a); INSERT INTO T VALUES (1), (2), (3);");
  std::vector<std::string> columns;
  int seen = 0;
  EXPECT_EQ(
      read_table(path, "T", columns, [&](const std::vector<StoredValue>&) { return ++seen < 2; }),
      TableRead::kRead);
  EXPECT_EQ(seen, 2);
}

TEST(SqliteTableReader, DeclinesWhatItDoesNotRead) {
  test::TempDir t("cs_sqlite_reader");
  auto declined = [&](const std::string& name, const std::string& sql) {
    const std::string path = t.str() + "/" + name + ".db";
    sqlite_exec(path, sql);
    std::vector<std::string> columns;
    return read_table(path, "T", columns, [](const std::vector<StoredValue>&) { return true; }) ==
           TableRead::kDeclined;
  };
  EXPECT_TRUE(declined("collate", "CREATE TABLE T(name TEXT COLLATE NOCASE, value TEXT)"));
  EXPECT_TRUE(declined("default", "CREATE TABLE T(a DEFAULT 3)"));
  EXPECT_TRUE(declined("norowid", "CREATE TABLE T(a PRIMARY KEY, b) WITHOUT ROWID"));
  EXPECT_TRUE(declined("view", "CREATE TABLE U(a); CREATE VIEW T AS SELECT a FROM U"));
  EXPECT_TRUE(declined("utf16",
                       "PRAGMA encoding='UTF-16le'; CREATE TABLE T(a); "
                       "INSERT INTO T VALUES ('x')"));
  // Not a database, and a database cut short: declined, for SQLite to report.
  const std::string junk = t.str() + "/junk.db";
  test::write_file(junk, std::string(4096, 'x'));
  std::vector<std::string> columns;
  auto all = [](const std::vector<StoredValue>&) { return true; };
  EXPECT_EQ(read_table(junk, "T", columns, all), TableRead::kDeclined);
  EXPECT_EQ(read_table(t.str() + "/missing.db", "T", columns, all), TableRead::kDeclined);
  const std::string full = t.str() + "/full.db";
  sqlite_exec(
      full,
      "PRAGMA page_size=512; CREATE TABLE T(a); WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL "
      "SELECT v + 1 FROM s WHERE v < 200) INSERT INTO T SELECT printf('%.*c', 300, 'q') FROM s;");
  const std::string bytes = test::slurp(full);
  const std::string cut = t.str() + "/cut.db";
  test::write_file(cut, bytes.substr(0, bytes.size() / 2));
  EXPECT_EQ(read_table(cut, "T", columns, all), TableRead::kDeclined);
}

// Random tables of every declared type SQLite knows an affinity for (REAL columns hold integers
// stored as integers, INTEGER PRIMARY KEY columns the rowid, PRIMARY KEY DESC and INT PRIMARY
// KEY are plain columns), rows inserted and deleted at random: the pages give what SQLite gives.
TEST(SqliteTableReader, RandomTablesAsSqliteReadsThem) {
  test::TempDir t("cs_sqlite_reader");
  uint64_t seed = 12345;
  auto next = [&] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return seed >> 33;
  };
  const std::vector<std::string> types = {
      "INTEGER", "REAL", "DOUBLE PRECISION", "float",       "NUMERIC", "TEXT",
      "",        "BLOB", "integer",          "VARYING CHAR"};
  for (int round = 0; round < 40; ++round) {
    const std::string path = t.str() + "/r" + std::to_string(round) + ".db";
    const int ncols = 1 + static_cast<int>(next() % 6);
    const int pk = static_cast<int>(next() % (ncols + 1)) - 1;  // -1: none
    const int pk_kind = static_cast<int>(next() % 3);           // INTEGER, INTEGER DESC, INT
    std::string create = "CREATE TABLE T(";
    for (int c = 0; c < ncols; ++c) {
      if (c) create += ", ";
      create += "c" + std::to_string(c);
      if (c == pk) {
        create += pk_kind == 2 ? " INT PRIMARY KEY" : " INTEGER PRIMARY KEY";
        if (pk_kind == 1) create += " DESC";
      } else {
        create += " " + types[next() % types.size()];
        if (next() % 5 == 0) create += " NOT NULL";
      }
    }
    create += ")";
    std::string sql =
        "PRAGMA page_size=" + std::to_string(512 << (next() % 4)) + "; " + create + "; BEGIN;";
    const int rows = static_cast<int>(next() % 900);
    for (int r = 0; r < rows; ++r) {
      sql += "INSERT OR IGNORE INTO T VALUES (";
      for (int c = 0; c < ncols; ++c) {
        if (c) sql += ", ";
        if (c == pk) {  // an integer key (an INTEGER PRIMARY KEY refuses others) or NULL
          sql += next() % 4 == 0 ? std::string("NULL") : std::to_string(next() % 5000);
          continue;
        }
        switch (next() % 7) {
          case 0:
            sql += "NULL";
            break;
          case 1:
            sql += std::to_string(static_cast<int64_t>(next()) - (1LL << 30));
            break;
          case 2:
            sql += std::to_string(static_cast<double>(next() % 1000) / 8.0);
            break;
          case 3:
            sql += "'" + std::to_string(next() % 100) + "'";
            break;
          case 4:
            sql += "printf('%.*c', " + std::to_string(next() % 3000) + ", 'w')";
            break;
          case 5:
            sql += "x'0a0b'";
            break;
          default:
            sql += std::to_string(next() % 300) + ".0";
        }
      }
      sql += ");";
    }
    sql += "DELETE FROM T WHERE rowid % 7 = 3; COMMIT;";
    sqlite_exec(path, sql);
    std::vector<std::string> got, columns;
    ASSERT_EQ(by_pages(path, "T", got, columns), TableRead::kRead) << create;
    ASSERT_EQ(got, by_sqlite(path, "T")) << create;
    ASSERT_EQ(static_cast<int>(columns.size()), ncols);
  }
}

// A reader holds at most its budget of pages: a larger table is declined (SQLite reads it),
// whether the file fits the budget (one buffer) or not (a page at a time).
TEST(SqliteTableReader, DeclinesATableLargerThanItsBudget) {
  test::TempDir t("cs_sqlite_reader");
  const std::string path = t.str() + "/big.db";
  sqlite_exec(path,
              "PRAGMA page_size=1024; CREATE TABLE Small(a); INSERT INTO Small VALUES (1), (2);"
              "CREATE TABLE Big(a); WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s "
              "WHERE v < 2000) INSERT INTO Big SELECT printf('%.*c', 100, 'b') FROM s;");
  const uint64_t size = std::filesystem::file_size(path);
  ASSERT_GT(size, 200u * 1024);
  {
    const PagedDatabase pages(path, 64 * 1024);  // a page at a time, 64 pages at most
    ASSERT_TRUE(pages.ok());
    EXPECT_TRUE(pages.rows(*pages.table("Small")));
    EXPECT_FALSE(pages.rows(*pages.table("Big")));
  }
  {
    const PagedDatabase pages(path, size);  // the whole file in one buffer
    ASSERT_TRUE(pages.ok());
    const auto big = pages.rows(*pages.table("Big"));
    ASSERT_TRUE(big);
    EXPECT_EQ(big->size(), 2000u);
  }
}

TEST(SqliteTableReader, TellsIndexesAndAffinities) {
  test::TempDir t("cs_sqlite_reader");
  const std::string path = t.str() + "/i.db";
  sqlite_exec(path,
              "CREATE TABLE T(a INTEGER, b TEXT, c REAL); CREATE INDEX ti ON T (a, b);"
              "CREATE TABLE U(a, b); CREATE INDEX ui ON U (a, b); CREATE TABLE V(x PRIMARY KEY, y);"
              "CREATE TABLE W(id INTEGER PRIMARY KEY, v);");
  const PagedDatabase db(path);
  ASSERT_TRUE(db.ok());
  const PagedTable* T = db.table("t");
  ASSERT_NE(T, nullptr);
  EXPECT_EQ(T->indexes, (std::vector<std::vector<std::string>>{{"a", "b"}}));
  EXPECT_TRUE(T->index_may_cover({"b", "A"}));
  EXPECT_FALSE(T->index_may_cover({"a", "c"}));
  EXPECT_EQ(T->affinity,
            (std::vector<Affinity>{Affinity::kInteger, Affinity::kText, Affinity::kReal}));
  EXPECT_TRUE(db.table("U")->index_may_cover({"a", "b"}));
  ASSERT_EQ(db.table("V")->indexes.size(), 1u);        // the automatic index of a non-integer key:
  EXPECT_TRUE(db.table("V")->index_may_cover({"y"}));  // its columns are not told
  EXPECT_TRUE(db.table("W")->indexes.empty());
  EXPECT_EQ(db.table("W")->rowid_column, 0);
  EXPECT_FALSE(db.table("W")->index_may_cover({"id", "v"}));
  EXPECT_EQ(db.table("nothing"), nullptr);
  ASSERT_NE(db.table("SQLITE_MASTER"), nullptr);
  EXPECT_EQ(db.table("sqlite_master")->columns.size(), 5u);
  EXPECT_EQ(affinity_of("VARCHAR"), Affinity::kText);
  EXPECT_EQ(affinity_of("FLOATING POINT"), Affinity::kInteger);  // "INT" comes first
  EXPECT_EQ(affinity_of("DECIMAL"), Affinity::kNumeric);
  EXPECT_EQ(affinity_of(""), Affinity::kBlob);
}

}  // namespace
}  // namespace cs::io::sqlite
