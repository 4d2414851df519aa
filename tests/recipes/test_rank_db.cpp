// recipes/frame/rank_db.h and recipes/frame/frame.h: a query's rows typed as SQLite stored them,
// and equal texts of a column sharing one string (as do copies of a text cell).
#include "recipes/frame/rank_db.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>

#include "recipes/recipe_test_util.h"

namespace cs::recipes {
namespace {

TEST(TextCell, CopiesShareTheString) {
  const Cell a = Cell::text("hcom_allReduce__123_0_1_with_a_long_name");
  const Cell b = a;
  EXPECT_EQ(&a.str(), &b.str());
  EXPECT_EQ(a, Cell::text("hcom_allReduce__123_0_1_with_a_long_name"));
  EXPECT_EQ(Cell::integer(3).str(), "");
}

TEST(RankDbQuery, TypedCellsAndEqualTextsShareOneString) {
  const std::filesystem::path dir = cs::test::temp_dir("rank-db-query");
  const std::string path = (dir / "analysis.db").string();
  sqlite3* w = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &w), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(w,
                         "CREATE TABLE t(name TEXT, n INTEGER, x REAL);"
                         "INSERT INTO t VALUES ('group_a_long_enough_to_be_on_the_heap', 1, 0.5),"
                         "('other', NULL, 2.0), ('group_a_long_enough_to_be_on_the_heap', 3, NULL)",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(w);
  io::Diagnostics diag;
  RankDb db(path, diag);
  ASSERT_TRUE(db.ok());
  Frame f;
  ASSERT_TRUE(db.query("SELECT * FROM t", {}, f, "t", diag));
  ASSERT_EQ(f.rows(), 3u);
  const auto& names = f.columns[0].cells;
  EXPECT_EQ(names[0].str(), "group_a_long_enough_to_be_on_the_heap");
  EXPECT_EQ(names[1].str(), "other");
  EXPECT_EQ(&names[0].str(), &names[2].str());
  EXPECT_EQ(f.columns[1].cells[0], Cell::integer(1));
  EXPECT_TRUE(f.columns[1].cells[1].is_null());
  EXPECT_EQ(f.columns[2].cells[1], Cell::real(2.0));
  EXPECT_TRUE(diag.items().empty());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cs::recipes
