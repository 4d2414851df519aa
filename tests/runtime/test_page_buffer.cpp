// PageBuffer: a copy of the bytes in pages of its own; copies are deep, moves steal, release
// empties.
#include "runtime/page_buffer.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

using cs::runtime::PageBuffer;

TEST(PageBuffer, HoldsACopyOfTheBytes) {
  std::string text(10000, 'x');
  text[9999] = 'y';
  PageBuffer b(text.data(), text.size());
  text[0] = 'z';  // the buffer has its own copy
  ASSERT_EQ(b.size(), 10000u);
  EXPECT_EQ(b.data()[0], 'x');
  EXPECT_EQ(b.data()[9999], 'y');
  EXPECT_FALSE(b.empty());
}

TEST(PageBuffer, CopiesAreDeepAndMovesSteal) {
  const std::string text = "hcom_allReduce__844_2_1";
  PageBuffer a(text.data(), text.size());
  PageBuffer copy = a;
  EXPECT_NE(copy.data(), a.data());
  EXPECT_EQ(std::string(copy.data(), copy.size()), text);
  const char* pages = a.data();
  PageBuffer moved = std::move(a);
  EXPECT_EQ(moved.data(), pages);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  copy = moved;
  EXPECT_EQ(std::string(copy.data(), copy.size()), text);
  moved.release();
  EXPECT_TRUE(moved.empty());
  EXPECT_EQ(moved.data(), nullptr);
  EXPECT_EQ(std::string(copy.data(), copy.size()), text);
}

TEST(PageBuffer, EmptyMapsNothing) {
  PageBuffer b("", 0);
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.data(), nullptr);
  PageBuffer c = b;
  EXPECT_TRUE(c.empty());
}
