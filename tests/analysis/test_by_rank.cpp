// analysis/by_rank.h: per-rank values in rank order (ByRank) and the ranks' slots (RankSlots),
// against std::map, which they replace in the slow-rank analysis.
#include "analysis/by_rank.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <utility>
#include <vector>

using cs::analysis::ByRank;
using cs::analysis::RankSlots;

TEST(ByRank, SortsFindsAndIteratesInRankOrder) {
  const ByRank<double> v({{7, 0.7}, {-1, 9.0}, {3, 0.3}});
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(*v.find(3), 0.3);
  EXPECT_EQ(v.at(-1), 9.0);
  EXPECT_EQ(v.find(4), nullptr);
  EXPECT_THROW(v.at(4), std::out_of_range);
  std::vector<int> order;
  for (const auto& [rank, value] : v) order.push_back(rank);
  EXPECT_EQ(order, (std::vector<int>{-1, 3, 7}));
  EXPECT_TRUE(ByRank<int>().empty());
}

TEST(ByRank, ARankGivenTwiceKeepsItsLastValueAsAMapWould) {
  std::mt19937 gen(5);
  std::uniform_int_distribution<int> rank(0, 40);
  std::vector<ByRank<int>::Entry> entries;
  std::map<int, int> reference;
  for (int i = 0; i < 500; ++i) {
    const int r = rank(gen);
    entries.emplace_back(r, i);
    reference[r] = i;
  }
  const ByRank<int> v(std::move(entries));
  ASSERT_EQ(v.size(), reference.size());
  auto it = reference.begin();
  for (const auto& [r, value] : v) {
    EXPECT_EQ(r, it->first);
    EXPECT_EQ(value, it->second) << "rank " << r;
    ++it;
  }
}

TEST(RankSlots, EachRankHasItsPlaceInRankOrder) {
  const RankSlots slots({12, 3, 12, 5, 0});
  ASSERT_EQ(slots.size(), 4u);
  EXPECT_EQ(slots.of(0), 0);
  EXPECT_EQ(slots.of(3), 1);
  EXPECT_EQ(slots.of(5), 2);
  EXPECT_EQ(slots.of(12), 3);
  EXPECT_EQ(slots.of(4), -1);
  EXPECT_EQ(slots.rank(2), 5);
}
