// io/sqlite: tables written straight in SQLite's file format, read back by SQLite itself:
// every value and storage class, every page size, deep b-trees, overflow pages, the lock-byte
// page, files SQLite wrote before and writes after, and the layouts left to SQLite. (SQLite's
// integrity check also checks each value is one the column's type could hold.)
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "io/sqlite/database_file_appender.h"
#include "io/sqlite/sqlite_record.h"
#include "support/test_files.h"

namespace cs::io::sqlite {
namespace {

struct Value {
  enum Kind { kNull, kInt, kReal, kText } kind = kNull;
  int64_t i = 0;
  double r = 0;
  std::string t;
};

using Row = std::vector<Value>;

std::string_view encode(RecordEncoder& enc, const Row& row) {
  for (const Value& v : row) {
    switch (v.kind) {
      case Value::kNull:
        enc.null();
        break;
      case Value::kInt:
        enc.integer(v.i);
        break;
      case Value::kReal:
        enc.real(v.r);
        break;
      case Value::kText:
        enc.text(v.t);
        break;
    }
  }
  return enc.finish();
}

// pandas' statement for table `name` with the columns a INTEGER, b REAL, c TEXT.
std::string create_sql(const std::string& name) {
  return "CREATE TABLE \"" + name + "\" (\n\"a\" INTEGER,\n  \"b\" REAL,\n  \"c\" TEXT\n)";
}
const std::string kCreate = create_sql("T");

// Appends `rows` as table `name` to `path`; expects the writer to take the file.
void append(const std::string& path, const std::string& name, const std::vector<Row>& rows) {
  const std::string create = create_sql(name);
  DatabaseFileAppender db(path);
  ASSERT_EQ(db.read_errno(), 0);
  ASSERT_EQ(db.unsupported(), "");
  ASSERT_FALSE(db.has_table(name));
  ASSERT_TRUE(db.schema_has_room(name, create));
  TableBtreeBuilder t = db.new_table();
  RecordEncoder enc;
  for (const Row& r : rows) t.add_row(encode(enc, r));
  ASSERT_TRUE(db.append(name, create, t)) << std::strerror(errno);
}

sqlite3* open_db(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  return db;
}

std::string one_text(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql;
  std::string out = "(no row)";
  if (sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char* t = sqlite3_column_text(st, 0);
    out = t ? reinterpret_cast<const char*>(t) : "NULL";
  }
  sqlite3_finalize(st);
  return out;
}

void exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK)
      << sql << ": " << (err ? err : "");
  sqlite3_free(err);
}

// Each row of table `name` read back by SQLite equals `rows`, value and storage class, in rowid
// order; and each row found again by its rowid (through the interior pages).
void expect_rows(sqlite3* db, const std::string& name, const std::vector<Row>& rows,
                 bool by_rowid = true) {
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(
      sqlite3_prepare_v2(db, ("SELECT rowid, * FROM \"" + name + "\"").c_str(), -1, &st, nullptr),
      SQLITE_OK);
  size_t n = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    ASSERT_LT(n, rows.size());
    EXPECT_EQ(sqlite3_column_int64(st, 0), static_cast<int64_t>(n + 1));
    const Row& want = rows[n];
    for (size_t c = 0; c < want.size(); ++c) {
      const int col = static_cast<int>(c) + 1;
      const Value& v = want[c];
      switch (v.kind) {
        case Value::kNull:
          EXPECT_EQ(sqlite3_column_type(st, col), SQLITE_NULL) << "row " << n << " col " << c;
          break;
        case Value::kInt:
          ASSERT_EQ(sqlite3_column_type(st, col), SQLITE_INTEGER) << "row " << n << " col " << c;
          EXPECT_EQ(sqlite3_column_int64(st, col), v.i) << "row " << n;
          break;
        case Value::kReal:
          ASSERT_EQ(sqlite3_column_type(st, col), SQLITE_FLOAT) << "row " << n << " col " << c;
          if (std::isnan(v.r)) {
            EXPECT_TRUE(std::isnan(sqlite3_column_double(st, col)));
          } else {
            EXPECT_EQ(sqlite3_column_double(st, col), v.r) << "row " << n;
          }
          break;
        case Value::kText: {
          ASSERT_EQ(sqlite3_column_type(st, col), SQLITE_TEXT) << "row " << n << " col " << c;
          const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st, col));
          EXPECT_EQ(std::string(p, static_cast<size_t>(sqlite3_column_bytes(st, col))), v.t)
              << "row " << n;
          break;
        }
      }
    }
    ++n;
  }
  sqlite3_finalize(st);
  EXPECT_EQ(n, rows.size());
  if (!by_rowid) return;
  for (size_t r = 0; r < rows.size(); r += std::max<size_t>(1, rows.size() / 97)) {
    const std::string sql =
        "SELECT count(*) FROM \"" + name + "\" WHERE rowid = " + std::to_string(r + 1);
    EXPECT_EQ(one_text(db, sql), "1") << sql;
  }
}

Value I(int64_t v) {
  return {Value::kInt, v, 0, {}};
}
Value R(double v) {
  return {Value::kReal, 0, v, {}};
}
Value S(std::string v) {
  return {Value::kText, 0, 0, std::move(v)};
}
Value N() {
  return {};
}

// Integers on both sides of each serial type's limit, reals of every kind, texts of lengths
// around the payload limits of every page size (local, spilled, several overflow pages).
std::vector<Row> assorted_rows() {
  std::vector<Row> rows;
  const int64_t ints[] = {0,
                          1,
                          -1,
                          2,
                          127,
                          128,
                          -128,
                          -129,
                          32767,
                          32768,
                          -32768,
                          -32769,
                          8388607,
                          8388608,
                          -8388608,
                          -8388609,
                          2147483647,
                          2147483648LL,
                          -2147483648LL,
                          -2147483649LL,
                          140737488355327LL,
                          140737488355328LL,
                          -140737488355328LL,
                          -140737488355329LL,
                          std::numeric_limits<int64_t>::max(),
                          std::numeric_limits<int64_t>::min()};
  const double reals[] = {0.5,
                          -0.25,
                          1e300,
                          -1e-300,
                          5e-324,
                          3.0,
                          1e17,
                          std::numeric_limits<double>::infinity(),
                          -std::numeric_limits<double>::infinity()};
  const size_t lengths[] = {0,    1,    13,   100,  400,   477,   478,   479,   1000,  4000,
                            4061, 4062, 4096, 9000, 65000, 65502, 65503, 70000, 200000};
  size_t k = 0;
  for (int64_t v : ints) rows.push_back({I(v), R(reals[k++ % 9]), N()});
  for (size_t len : lengths) {
    std::string s(len, 'x');
    for (size_t i = 0; i < len; ++i) s[i] = static_cast<char>('a' + (i * 7 + len) % 26);
    rows.push_back({N(), N(), S(s)});
    rows.push_back({I(static_cast<int64_t>(len)), R(len / 3.0), S(s + "\xc3\xa9")});
  }
  rows.push_back({N(), N(), N()});
  return rows;
}

TEST(SqliteVarint, LengthsAndRoundTripsAtEveryBoundary) {
  const std::pair<uint64_t, size_t> cases[] = {{0, 1},          {127, 1},
                                               {128, 2},        {16383, 2},
                                               {16384, 3},      {(1ULL << 21) - 1, 3},
                                               {1ULL << 21, 4}, {(1ULL << 56) - 1, 8},
                                               {1ULL << 56, 9}, {~0ULL, 9}};
  for (auto [v, len] : cases) {
    unsigned char buf[9];
    EXPECT_EQ(varint_length(v), len) << v;
    ASSERT_EQ(put_varint(buf, v), len) << v;
    uint64_t back = 0;
    EXPECT_EQ(get_varint(buf, buf + len, back), len) << v;
    EXPECT_EQ(back, v);
    EXPECT_EQ(get_varint(buf, buf + len - 1, back), 0u) << "a cut varint is not read";
  }
}

class SqliteFileWriterPageSize : public testing::TestWithParam<int> {};

TEST_P(SqliteFileWriterPageSize, EveryValueReadsBackAndTheFileIsIntact) {
  test::TempDir t("cs_sqlite_file");
  const std::string path = t.str() + "/out.db";
  // A database SQLite starts with the page size, one table of its own and an index.
  sqlite3* db = open_db(path);
  exec(db, "PRAGMA page_size=" + std::to_string(GetParam()) +
               "; CREATE TABLE Before(x TEXT, y INTEGER); CREATE INDEX ix ON Before(x);"
               "INSERT INTO Before VALUES ('kept', 42)");
  sqlite3_close(db);
  const std::vector<Row> rows = assorted_rows();
  append(path, "T", rows);
  append(path, "Empty", {});
  db = open_db(path);
  EXPECT_EQ(one_text(db, "PRAGMA page_size"), std::to_string(GetParam()));
  EXPECT_EQ(one_text(db, "PRAGMA integrity_check"), "ok");
  expect_rows(db, "T", rows);
  EXPECT_EQ(one_text(db, "SELECT count(*) FROM Empty"), "0");
  EXPECT_EQ(one_text(db, "SELECT x || y FROM Before WHERE x = 'kept'"), "kept42");
  EXPECT_EQ(one_text(db, "SELECT sql FROM sqlite_master WHERE name = 'T'"), kCreate);
  // SQLite goes on adding to the file afterwards.
  exec(db,
       "CREATE TABLE After(z REAL); INSERT INTO After VALUES (1.5); INSERT INTO T(a) VALUES (9)");
  EXPECT_EQ(one_text(db, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(one_text(db, "SELECT count(*) FROM T"), std::to_string(rows.size() + 1));
  sqlite3_close(db);
}

INSTANTIATE_TEST_SUITE_P(PageSizes, SqliteFileWriterPageSize, testing::Values(512, 4096, 65536));

TEST(SqliteFileWriter, AnIntegerInARealColumnReadsBackAsReal) {
  // What the frame writer relies on to store whole REALs as SQLite does: as integers.
  test::TempDir t("cs_sqlite_file");
  const std::string path = t.str() + "/real.db";
  append(path, "T", {{I(1), I(3), N()}, {I(2), I(-140737488355328LL), N()}, {I(3), I(0), N()}});
  sqlite3* db = open_db(path);
  expect_rows(db, "T",
              {{I(1), R(3.0), N()}, {I(2), R(-140737488355328.0), N()}, {I(3), R(0), N()}});
  EXPECT_EQ(one_text(db, "SELECT group_concat(typeof(b)) FROM T"), "real,real,real");
  sqlite3_close(db);
}

TEST(SqliteFileWriter, ANewFileWithManyRowsHasSeveralInteriorLevels) {
  test::TempDir t("cs_sqlite_file");
  const std::string path = t.str() + "/new.db";
  std::vector<Row> rows;
  for (int64_t r = 0; r < 60000; ++r)
    rows.push_back({I(r * 1000003), R(r / 7.0), S("group_" + std::to_string(r % 13))});
  append(path, "T", rows);
  append(path, "U", {{I(1), R(0.5), S("u")}});
  sqlite3* db = open_db(path);
  EXPECT_EQ(one_text(db, "PRAGMA page_size"), "4096");
  EXPECT_EQ(one_text(db, "PRAGMA integrity_check"), "ok");
  expect_rows(db, "T", rows);
  EXPECT_EQ(one_text(db, "SELECT c FROM U"), "u");
  sqlite3_close(db);
}

TEST(SqliteFileWriter, DeepTreesOnSmallPages) {
  test::TempDir t("cs_sqlite_file");
  const std::string path = t.str() + "/small.db";
  sqlite3* db = open_db(path);
  exec(db, "PRAGMA page_size=512; CREATE TABLE Before(x)");
  sqlite3_close(db);
  std::vector<Row> rows;
  for (int64_t r = 0; r < 40000; ++r) rows.push_back({I(r), N(), S(std::string(r % 50, 'q'))});
  append(path, "T", rows);
  db = open_db(path);
  EXPECT_EQ(one_text(db, "PRAGMA integrity_check"), "ok");
  expect_rows(db, "T", rows);
  sqlite3_close(db);
}

TEST(SqliteFileWriter, TheLockBytePageIsSkipped) {
  // SQLite never uses the page holding the byte at 1 GiB. A table written across it: its pages
  // on both sides, that page left out (zero). The file is sparse: its 1 GiB costs no disk.
  test::TempDir t("cs_sqlite_file");
  const std::string path = t.str() + "/big.db";
  sqlite3* db = open_db(path);
  exec(db, "PRAGMA page_size=512; CREATE TABLE Before(x)");
  sqlite3_close(db);
  const uint32_t lock_page = 0x40000000 / 512 + 1;
  ASSERT_EQ(truncate(path.c_str(), off_t{lock_page - 3} * 512), 0);
  {  // the header's page count to the new size (pages 3.. are unused, as after a crash)
    std::string head(512, '\0');
    std::ifstream(path, std::ios::binary).read(head.data(), 512);
    const uint32_t pages = lock_page - 3;
    for (int i = 0; i < 4; ++i) head[28 + i] = static_cast<char>(pages >> (24 - 8 * i));
    FILE* f = std::fopen(path.c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    std::fwrite(head.data(), 1, head.size(), f);
    std::fclose(f);
  }
  std::vector<Row> rows;
  for (int64_t r = 0; r < 300; ++r) rows.push_back({I(r), R(r + 0.5), S(std::string(20, 'z'))});
  DatabaseFileAppender file(path);
  ASSERT_EQ(file.unsupported(), "");
  TableBtreeBuilder tree = file.new_table();
  RecordEncoder enc;
  for (const Row& r : rows) tree.add_row(encode(enc, r));
  ASSERT_TRUE(file.append("T", kCreate, tree));
  ASSERT_GT(tree.page_count(), 5u);
  // The pages are numbered from lock_page - 2 on.
  const unsigned char* lock = tree.page_bytes(lock_page);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(lock), 512), std::string(512, '\0'));
  EXPECT_NE(tree.page_bytes(lock_page - 1)[0], 0) << "the page before is a b-tree page";
  EXPECT_NE(tree.page_bytes(lock_page + 1)[0], 0) << "the page after is a b-tree page";
  db = open_db(path);
  expect_rows(db, "T", rows);
  sqlite3_close(db);
}

TEST(SqliteFileWriter, LayoutsItDoesNotWriteAreLeftToSQLite) {
  test::TempDir t("cs_sqlite_file");
  auto made = [&](const std::string& name, const std::string& sql) {
    const std::string path = t.str() + "/" + name;
    sqlite3* db = open_db(path);
    exec(db, sql);
    sqlite3_close(db);
    return path;
  };
  EXPECT_NE(DatabaseFileAppender(made("wal.db", "PRAGMA journal_mode=WAL; CREATE TABLE a(x)"))
                .unsupported(),
            "");
  EXPECT_NE(DatabaseFileAppender(made("av.db", "PRAGMA auto_vacuum=FULL; CREATE TABLE a(x)"))
                .unsupported(),
            "");
  std::string many = "PRAGMA page_size=512;";
  for (int i = 0; i < 20; ++i)
    many += "CREATE TABLE t" + std::to_string(i) + "(a_long_column_name_" + std::to_string(i) +
            " TEXT, another_long_column_name INTEGER);";
  EXPECT_NE(DatabaseFileAppender(made("many.db", many)).unsupported(), "");
  const std::string junk = t.str() + "/junk.db";
  test::write_file(junk, std::string(8192, 'x'));
  EXPECT_NE(DatabaseFileAppender(junk).unsupported(), "");
  // A table that exists, and a schema page without room for one more row.
  DatabaseFileAppender plain(made("plain.db", "CREATE TABLE \"T\"(x)"));
  EXPECT_EQ(plain.unsupported(), "");
  EXPECT_TRUE(plain.has_table("T"));
  EXPECT_FALSE(plain.has_table("t"));
  EXPECT_TRUE(plain.schema_has_room("U", kCreate));
  EXPECT_FALSE(plain.schema_has_room("U", std::string(5000, 'x')));
}

// Rows whose records cross the builder's 1 MiB chunks in every way: small ones, and ones with
// overflow chains that start in one chunk and end in the next.
std::vector<Row> chunk_crossing_rows() {
  std::vector<Row> rows;
  for (int64_t r = 0; r < 30000; ++r) {
    const size_t len = r % 97 == 0 ? 9000 + static_cast<size_t>(r % 5000) : r % 40;
    rows.push_back({I(r * 7919), R(r / 3.0), S(std::string(len, static_cast<char>('a' + r % 26)))});
  }
  return rows;
}

class SqliteStreamedTable : public testing::TestWithParam<int> {};

TEST_P(SqliteStreamedTable, IsTheSameFileAsATableWrittenWhole) {
  test::TempDir t("cs_sqlite_file");
  const std::vector<Row> rows = chunk_crossing_rows();
  std::string files[2];
  for (int streamed = 0; streamed < 2; ++streamed) {
    const std::string path = t.str() + "/t" + std::to_string(streamed) + ".db";
    sqlite3* db = open_db(path);
    exec(db, "PRAGMA page_size=" + std::to_string(GetParam()) + "; CREATE TABLE Before(x)");
    sqlite3_close(db);
    DatabaseFileAppender file(path);
    ASSERT_EQ(file.unsupported(), "");
    TableBtreeBuilder tree = streamed ? file.new_streamed_table() : file.new_table();
    RecordEncoder enc;
    for (const Row& r : rows) tree.add_row(encode(enc, r));
    ASSERT_TRUE(file.append("T", kCreate, tree)) << std::strerror(errno);
    // Streamed: most pages went to the file while rows were added, so few are held at the end.
    size_t held = 0;
    tree.for_each_run([&](const unsigned char*, size_t n, uint32_t) {
      held += n;
      return true;
    });
    if (streamed) {
      EXPECT_LE(held, size_t{3} << 20) << "pages held at the end";
    } else {
      EXPECT_EQ(held, size_t{tree.page_count()} * static_cast<size_t>(GetParam()));
    }
    files[streamed] = test::slurp(path);
    db = open_db(path);
    EXPECT_EQ(one_text(db, "PRAGMA integrity_check"), "ok");
    expect_rows(db, "T", rows, false);
    sqlite3_close(db);
  }
  EXPECT_GT(files[0].size(), size_t{4} << 20);
  EXPECT_TRUE(files[0] == files[1]) << "the streamed file differs";
}

INSTANTIATE_TEST_SUITE_P(PageSizes, SqliteStreamedTable, testing::Values(512, 4096, 65536));

TEST(SqliteFileWriter, AFailedSpillLeavesTheFileAsItWasAndSaysWhy) {
  test::TempDir t("cs_sqlite_file");
  const std::string path = t.str() + "/full.db";
  append(path, "Before", {{I(1), R(2), S("kept")}});
  const std::string before = test::slurp(path);
  DatabaseFileAppender file(path);
  TableBtreeBuilder tree = file.new_table();
  int spills = 0;
  tree.set_spill([&](const unsigned char*, size_t, uint32_t) {
    ++spills;
    errno = ENOSPC;  // as a full disk says
    return false;
  });
  RecordEncoder enc;
  for (const Row& r : chunk_crossing_rows()) tree.add_row(encode(enc, r));
  EXPECT_EQ(spills, 1) << "no spill after the first failed";
  EXPECT_TRUE(tree.spill_failed());
  errno = 0;
  EXPECT_FALSE(file.append("T", kCreate, tree));
  EXPECT_EQ(errno, ENOSPC);
  EXPECT_TRUE(test::slurp(path) == before) << "the file was changed";
}

TEST(SqliteFileWriter, AnUnwritableFileIsFalseWithErrno) {
  test::TempDir t("cs_sqlite_file");
  DatabaseFileAppender db(t.str() + "/no/such/dir/out.db");
  ASSERT_EQ(db.read_errno(), 0);
  TableBtreeBuilder tree = db.new_table();
  errno = 0;
  EXPECT_FALSE(db.append("T", kCreate, tree));
  EXPECT_EQ(errno, ENOENT);
}

}  // namespace
}  // namespace cs::io::sqlite
