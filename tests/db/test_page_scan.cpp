// db/simple_select and the paged statements of db::Database: a plain query answered from the
// file's pages gives what SQLite gives (column names, storage classes, every accessor's value,
// numbers rendered as text by SQLite), and anything SQLite might answer otherwise (an index it
// could read instead, WHERE, a missing column) is left to SQLite.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "db/database.h"
#include "db/simple_select.h"
#include "db/sqlite_values.h"
#include "support/sqlite_exec.h"
#include "support/test_files.h"

namespace cs::db {
namespace {

using test::sqlite_exec;

// Every accessor's view of every row: names, then per value the storage class, int64_at,
// double_at, num_at and text_at.
std::vector<std::string> view(Statement& st) {
  std::vector<std::string> out;
  std::string names;
  for (int c = 0; c < st.column_count(); ++c) names += st.column_name(c) + "|";
  out.push_back(names);
  io::Diagnostics diag;
  while (st.step(diag) == StepResult::kRow) {
    std::string r;
    for (int c = 0; c < st.column_count(); ++c) {
      char buf[200];
      const auto i = st.int64_at(c);
      const auto d = st.double_at(c);
      const auto n = st.num_at(c);
      std::snprintf(buf, sizeof buf, "%d,%s,%s,%s,", st.storage_class(c),
                    i ? std::to_string(*i).c_str() : "-",
                    d ? (std::isnan(*d) ? "nan" : std::to_string(*d).c_str()) : "-",
                    n ? io::py_repr(n->v).c_str() : "-");
      r += buf;
      r += std::string(st.text_at(c)) + "|";
    }
    out.push_back(r);
  }
  EXPECT_TRUE(diag.empty());
  return out;
}

// The same query through SQLite: `NOT INDEXED` changes nothing of a table without indexes but
// is not a plain query, so SQLite runs it.
std::vector<std::string> by_sqlite(const Database& db, const std::string& table) {
  io::Diagnostics diag;
  auto st = db.prepare("SELECT * FROM " + table + " WHERE 1", table, diag);
  EXPECT_TRUE(st && !st->paged());
  return st ? view(*st) : std::vector<std::string>{};
}

TEST(PageScan, PlainQueriesGiveWhatSqliteGives) {
  test::TempDir t("cs_page_scan");
  const std::string path = t.str() + "/x.db";
  sqlite_exec(
      path,
      "CREATE TABLE T(id INTEGER PRIMARY KEY, name TEXT, size NUMERIC, ratio REAL, raw, "
      "step TEXT);"
      "INSERT INTO T VALUES (3, 'allreduce', 12, 0.25, x'6869', '1');"
      "INSERT INTO T VALUES (7, NULL, '12.5', 2, 17, 2);"
      "INSERT INTO T VALUES (9, 'x', 'abc', 1e300, 0.1, 'NaN');"
      "INSERT INTO T VALUES (11, '', -4, -0.0, '42', NULL);"
      "INSERT INTO T VALUES (12, '3e2', 9223372036854775807, 1.5e-7, 123456789.125, ' 7');");
  io::Diagnostics diag;
  auto db = Database::open(path, diag);
  ASSERT_TRUE(db);
  auto st = db->prepare("SELECT * FROM T", "T", diag);
  ASSERT_TRUE(st);
  EXPECT_TRUE(st->paged());
  EXPECT_EQ(st->handle(), nullptr);
  EXPECT_EQ(view(*st), by_sqlite(*db, "T"));
  // A projection in another order, names as the table spells them.
  auto sub = db->prepare("select RATIO, id ,raw from t", "T", diag);
  ASSERT_TRUE(sub);
  EXPECT_TRUE(sub->paged());
  auto ref = db->prepare("select RATIO, id ,raw from t where 1", "T", diag);
  ASSERT_TRUE(ref);
  EXPECT_FALSE(ref->paged());
  EXPECT_EQ(view(*sub), view(*ref));
  EXPECT_TRUE(diag.empty());
}

// A second query on the same table is answered from the rows the first one walked: the same
// values again (a payload continued on overflow pages, a row older than an added column, a
// column picked twice), as SQLite gives them.
TEST(PageScan, SecondScanOfATableGivesTheSameRows) {
  test::TempDir t("cs_page_scan");
  const std::string path = t.str() + "/x.db";
  sqlite_exec(path,
              "CREATE TABLE T(id INTEGER PRIMARY KEY, name TEXT, ratio REAL);"
              "INSERT INTO T VALUES (1, 'a', 2);"
              "INSERT INTO T VALUES (2, printf('%.9000c', 'x'), 0.5);"
              "ALTER TABLE T ADD COLUMN extra INTEGER;"
              "INSERT INTO T VALUES (3, NULL, -1, 7);");
  io::Diagnostics diag;
  auto db = Database::open(path, diag);
  ASSERT_TRUE(db);
  const auto want = by_sqlite(*db, "T");
  for (int round = 0; round < 2; ++round) {
    auto st = db->prepare("SELECT * FROM T", "T", diag);
    ASSERT_TRUE(st && st->paged());
    EXPECT_EQ(view(*st), want) << round;
    auto sub = db->prepare("SELECT extra, ratio, extra, id FROM T", "T", diag);
    auto ref = db->prepare("SELECT extra, ratio, extra, id FROM T WHERE 1", "T", diag);
    ASSERT_TRUE(sub && sub->paged() && ref && !ref->paged());
    EXPECT_EQ(view(*sub), view(*ref)) << round;
  }
  EXPECT_TRUE(diag.empty());
}

TEST(PageScan, LeavesToSqliteWhatItMightAnswerOtherwise) {
  test::TempDir t("cs_page_scan");
  const std::string path = t.str() + "/x.db";
  sqlite_exec(path,
              "CREATE TABLE TASK(startNs INTEGER, endNs INTEGER, globalTaskId INTEGER);"
              "CREATE INDEX TaskIndex ON TASK (startNs, globalTaskId);"
              "INSERT INTO TASK VALUES (5, 6, 2), (1, 2, 1);"
              "CREATE TABLE W(a) ; CREATE VIEW V AS SELECT a FROM W;");
  io::Diagnostics diag;
  auto db = Database::open(path, diag);
  ASSERT_TRUE(db);
  auto paged = [&](const std::string& sql) {
    io::Diagnostics d;
    auto st = db->prepare(sql, "TASK", d);
    return st && st->paged();
  };
  EXPECT_TRUE(paged("SELECT startNs, endNs FROM TASK"));          // no index holds endNs
  EXPECT_FALSE(paged("SELECT startNs, globalTaskId FROM TASK"));  // TaskIndex could be read
  EXPECT_FALSE(paged("SELECT globalTaskId FROM TASK"));
  EXPECT_TRUE(paged("SELECT globalTaskId FROM TASK NOT INDEXED"));
  EXPECT_TRUE(paged("SELECT * FROM TASK"));
  EXPECT_FALSE(paged("SELECT startNs FROM TASK WHERE endNs > 1"));
  EXPECT_FALSE(paged("SELECT rowid, startNs FROM TASK"));  // rowid: only for page_scan(.., true)
  EXPECT_FALSE(paged("SELECT a FROM V"));
  EXPECT_FALSE(paged("SELECT nothing FROM TASK"));
  EXPECT_FALSE(paged("SELECT * FROM NOTHING"));
  // SQLite reports what is wrong with the query, as before.
  io::Diagnostics d;
  EXPECT_FALSE(db->prepare("SELECT nothing FROM TASK", "TASK", d));
  EXPECT_FALSE(d.empty());
  // page_scan as the recipes' scans use it: the rowid when asked for.
  auto scan = db->page_scan("SELECT rowid, endNs FROM TASK", true);
  ASSERT_TRUE(scan);
  ASSERT_EQ(scan->rows.size(), 2u);
  EXPECT_EQ(scan->pick, (std::vector<int>{-1, 1}));
  EXPECT_EQ(scan->rows.rowid(1), 2);
}

TEST(PageScan, RecognisesOnlyPlainQueries) {
  auto q = parse_simple_select("  select a,b , c FROM Tab ");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->table, "Tab");
  EXPECT_EQ(q->columns, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_FALSE(q->not_indexed);
  q = parse_simple_select("SELECT * FROM t NOT INDEXED");
  ASSERT_TRUE(q);
  EXPECT_TRUE(q->columns.empty());
  EXPECT_TRUE(q->not_indexed);
  for (const char* sql :
       {"SELECT a FROM t WHERE a = 1", "SELECT a FROM t LIMIT 1", "SELECT DISTINCT a FROM t",
        "SELECT a AS b FROM t", "SELECT t.a FROM t", "SELECT a FROM main.t", "SELECT a FROM t;",
        "SELECT \"a\" FROM t", "SELECT count(*) FROM t", "SELECT a, FROM t", "SELECT FROM t",
        "SELECT a FROM t, u", "SELECT * FROM t NOT", "EXPLAIN SELECT * FROM t", ""})
    EXPECT_FALSE(parse_simple_select(sql)) << sql;
}

TEST(PageScan, ConvertsValuesAsSqliteDoes) {
  using K = io::sqlite::StoredValue::Kind;
  io::sqlite::StoredValue v;
  v.kind = K::kReal;
  v.r = 0.1;
  EXPECT_EQ(sqlite_text_of(v), "0.1");
  v.r = 1e300;
  EXPECT_EQ(sqlite_text_of(v), "1.0e+300");
  EXPECT_EQ(sqlite_int64_of(v), INT64_MAX);
  v.kind = K::kText;
  v.bytes = "12abc";
  EXPECT_EQ(sqlite_int64_of(v), 12);
  EXPECT_EQ(sqlite_double_of(v), 12.0);
  v.kind = K::kInt;
  v.i = -5;
  EXPECT_EQ(sqlite_text_of(v), "-5");
  v.kind = K::kNull;
  EXPECT_EQ(sqlite_text_of(v), "");
  EXPECT_EQ(sqlite_int64_of(v), 0);
}

// int64_of_text reads a whole text as strtoll does (base 10, nothing left over, no overflow):
// checked against strtoll itself, the short digit strings it reads without a copy included.
TEST(PageScan, Int64OfTextIsStrtoll) {
  const std::vector<std::string> texts = {"0",
                                          "7",
                                          "-7",
                                          "007",
                                          "-0",
                                          "1708156041970123456",
                                          "999999999999999999",
                                          "-999999999999999999",
                                          "9223372036854775807",
                                          "-9223372036854775808",
                                          "9223372036854775808",
                                          "-9223372036854775809",
                                          "9999999999999999999",
                                          "-9999999999999999999",
                                          "12345678901234567890",
                                          "-",
                                          "+5",
                                          " 5",
                                          "5 ",
                                          "1e3",
                                          "1.0",
                                          "0x10",
                                          "12a",
                                          "a12",
                                          std::string("1\0", 2),
                                          "--1",
                                          "\t-3"};
  for (const std::string& t : texts) {
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(t.c_str(), &end, 10);
    const bool whole = errno == 0 && end == t.c_str() + t.size();
    const auto got = int64_of_text(t);
    ASSERT_EQ(got.has_value(), whole) << t;
    if (whole) {
      EXPECT_EQ(*got, v) << t;
    }
  }
  EXPECT_FALSE(int64_of_text(""));
}

}  // namespace
}  // namespace cs::db
