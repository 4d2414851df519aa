// The recipe frames' text pool: one copy of each text, equal texts equal pointers, emptied by
// release_text_pool.
#include "frame/text_pool.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

using cs::frame::intern_text;
using cs::frame::release_text_pool;
using cs::frame::text_pool_size;
using cs::frame::TextCache;

TEST(TextPool, EqualTextsShareOneCopy) {
  const std::string* a = intern_text("hcom_allReduce__844_2_1");
  EXPECT_EQ(a, intern_text(std::string("hcom_allReduce__844_2_1")));
  EXPECT_NE(a, intern_text("hcom_allReduce__844_2_2"));
  EXPECT_EQ(*a, "hcom_allReduce__844_2_1");
  TextCache cache;
  EXPECT_EQ(cache.intern("hcom_allReduce__844_2_1"), a);
}

TEST(TextPool, ReleaseEmptiesThePoolAndLaterTextsAreStoredAnew) {
  // Texts from several threads, as the ranks' readers intern them.
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t] {
      for (int i = 0; i < 5000; ++i)
        intern_text("op_" + std::to_string(t) + "_" + std::to_string(i));
    });
  for (auto& th : threads) th.join();
  EXPECT_GE(text_pool_size(), 20000u);
  release_text_pool();
  EXPECT_EQ(text_pool_size(), 0u);
  // Usable again: equal texts still share one copy.
  const std::string* a = intern_text("op_1_7");
  EXPECT_EQ(*a, "op_1_7");
  EXPECT_EQ(a, intern_text("op_1_7"));
  EXPECT_EQ(text_pool_size(), 1u);
  for (int i = 0; i < 1000; ++i) intern_text("again_" + std::to_string(i));  // grows again
  EXPECT_EQ(text_pool_size(), 1001u);
  EXPECT_EQ(a, intern_text("op_1_7"));
}
