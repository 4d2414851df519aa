// CellPairIndex: pairs of cells numbered in first-seen order, equal as their cell keys are.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "frame/frame.h"
#include "msprof_analyze/recipes/cell_pair_index.h"

namespace {

using cs::frame::Cell;
using cs::recipes::CellPairIndex;

TEST(CellPairIndex, NumbersPairsInFirstSeenOrderAcrossGrowth) {
  CellPairIndex index;
  constexpr int kPairs = 5000;  // many times the first table's size
  for (int i = 0; i < kPairs; ++i) {
    const auto [k, fresh] = index.find_or_add(Cell::text("group" + std::to_string(i % 37)),
                                              Cell::text("op" + std::to_string(i)));
    EXPECT_EQ(k, static_cast<uint32_t>(i));
    EXPECT_TRUE(fresh);
  }
  ASSERT_EQ(index.size(), static_cast<size_t>(kPairs));
  for (int i = kPairs - 1; i >= 0; --i) {
    const Cell a = Cell::text("group" + std::to_string(i % 37));
    const Cell b = Cell::text("op" + std::to_string(i));
    EXPECT_EQ(index.find(a, b), i);
    const auto [k, fresh] = index.find_or_add(a, b);
    EXPECT_EQ(k, static_cast<uint32_t>(i));
    EXPECT_FALSE(fresh);
    EXPECT_EQ(index.first(k).str(), a.str());
    EXPECT_EQ(index.second(k).str(), b.str());
  }
  EXPECT_EQ(index.size(), static_cast<size_t>(kPairs));
  // The order of the pair matters; a pair never added is not found.
  EXPECT_EQ(index.find(Cell::text("op1"), Cell::text("group1")), -1);
  EXPECT_EQ(index.find(Cell::text("group1"), Cell::text("op2")), -1);
}

TEST(CellPairIndex, CellsAreEqualAsTheirKeysAre) {
  CellPairIndex index;
  // An integral float is the int of its value; NULL is a key of its own; so is every NaN.
  EXPECT_EQ(index.find_or_add(Cell::integer(4), Cell::null()).first, 0u);
  EXPECT_EQ(index.find_or_add(Cell::real(4.0), Cell::null()).first, 0u);
  EXPECT_EQ(index.find_or_add(Cell::real(4.5), Cell::null()).first, 1u);
  EXPECT_EQ(index.find_or_add(Cell::text("4"), Cell::null()).first, 2u);
  EXPECT_EQ(index.find_or_add(Cell::null(), Cell::null()).first, 3u);
  EXPECT_EQ(index.find_or_add(Cell::real(NAN), Cell::integer(1)).first, 4u);
  EXPECT_EQ(index.find_or_add(Cell::real(-NAN), Cell::real(1.0)).first, 4u);
  EXPECT_EQ(index.size(), 5u);
}

}  // namespace
