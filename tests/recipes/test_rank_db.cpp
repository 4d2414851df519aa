// msprof_analyze/recipes/rank_db.h and frame/frame.h: a query's rows typed as SQLite stored them,
// and equal texts sharing one interned string (as do copies of a text cell, on any thread).
#include "msprof_analyze/recipes/rank_db.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "recipes/recipe_test_util.h"

namespace cs::recipes {
namespace {

TEST(TextCell, CopiesShareTheString) {
  const frame::Cell a = frame::Cell::text("hcom_allReduce__123_0_1_with_a_long_name");
  const frame::Cell b = a;
  EXPECT_EQ(&a.str(), &b.str());
  EXPECT_EQ(a, frame::Cell::text("hcom_allReduce__123_0_1_with_a_long_name"));
  EXPECT_EQ(frame::Cell::integer(3).str(), "");
}

TEST(TextCell, EqualTextsAreOneStringOnEveryThread) {
  // Built on different threads from different buffers, equal texts are one interned string (so
  // equality and hashing can compare pointers), and an int cell reads as its value only.
  const std::string text = "hcom_broadcast__77_0_1_long_enough_for_the_heap";
  const std::string* here = frame::Cell::text(text).text_ptr();
  const std::string* there = nullptr;
  std::thread t([&] { there = frame::Cell::text(std::string(text)).text_ptr(); });
  t.join();
  ASSERT_NE(here, nullptr);
  EXPECT_EQ(here, there);
  EXPECT_EQ(*here, text);
  EXPECT_NE(frame::Cell::text("other").text_ptr(), here);
  EXPECT_EQ(frame::Cell::text("").str(), "");
  EXPECT_EQ(frame::Cell::integer(3).text_ptr(), nullptr);
  EXPECT_EQ(frame::Cell::real(2.5).i(), 0);
  EXPECT_EQ(frame::Cell::integer(-4).num(), -4.0);
  EXPECT_EQ(sizeof(frame::Cell), 16u);
}

TEST(TextCell, ThreadsInterningTheSameTextsAgreeWhileThePoolGrows) {
  // Four threads intern the same 20,000 texts in different orders (far more than a shard's first
  // table holds, so every shard grows while the others read): each text is one string for all.
  constexpr int kTexts = 20000, kThreads = 4;
  std::vector<std::vector<const std::string*>> got(kThreads,
                                                   std::vector<const std::string*>(kTexts));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &got] {
      for (int k = 0; k < kTexts; ++k) {
        const int i = t % 2 ? kTexts - 1 - k : (k * 7919 + t) % kTexts;  // every i once
        got[t][i] = frame::intern_text("pool-stress-" + std::to_string(i));
      }
    });
  for (auto& th : threads) th.join();
  for (int i = 0; i < kTexts; ++i) {
    ASSERT_NE(got[0][i], nullptr);
    EXPECT_EQ(*got[0][i], "pool-stress-" + std::to_string(i));
    for (int t = 1; t < kThreads; ++t) ASSERT_EQ(got[t][i], got[0][i]) << "text " << i;
    ASSERT_EQ(frame::intern_text("pool-stress-" + std::to_string(i)), got[0][i]);
  }
}

TEST(TextCell, CacheGivesThePoolsStringAlsoAfterEvictions) {
  // A stream of 1,000 texts (far more than the cache's slots), each seen three times in a row
  // and again later: every answer is the pool's one copy of the text.
  frame::TextCache cache;
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < 1000; ++i) {
      const std::string text = "cache-text-" + std::to_string(i);
      for (int k = 0; k < 3; ++k) ASSERT_EQ(cache.intern(text), frame::intern_text(text)) << text;
      ASSERT_EQ(*cache.intern(text), text);
    }
  EXPECT_EQ(*cache.intern(""), "");
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
  recipes::RankDb db(path, diag);
  ASSERT_TRUE(db.ok());
  frame::Frame f;
  ASSERT_TRUE(db.query("SELECT * FROM t", {}, f, "t", diag));
  ASSERT_EQ(f.rows(), 3u);
  const auto& names = f.columns[0].cells;
  EXPECT_EQ(names[0].str(), "group_a_long_enough_to_be_on_the_heap");
  EXPECT_EQ(names[1].str(), "other");
  EXPECT_EQ(&names[0].str(), &names[2].str());
  EXPECT_EQ(f.columns[1].cells[0], frame::Cell::integer(1));
  EXPECT_TRUE(f.columns[1].cells[1].is_null());
  EXPECT_EQ(f.columns[2].cells[1], frame::Cell::real(2.0));
  EXPECT_TRUE(diag.items().empty());
  // The rows pass through a buffer reused from query to query: another query of another width
  // and length gets exactly its own rows.
  frame::Frame g;
  ASSERT_TRUE(db.query("SELECT n FROM t WHERE n IS NOT NULL", {}, g, "t", diag));
  ASSERT_EQ(g.columns.size(), 1u);
  EXPECT_EQ(g.columns[0].cells,
            (std::vector<frame::Cell>{frame::Cell::integer(1), frame::Cell::integer(3)}));
  frame::Frame empty;
  ASSERT_TRUE(db.query("SELECT name, x FROM t WHERE n > 9", {}, empty, "t", diag));
  EXPECT_EQ(empty.columns.size(), 2u);
  EXPECT_EQ(empty.rows(), 0u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cs::recipes
