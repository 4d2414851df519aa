#include "cluster/partition.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace cs::cluster {
namespace {

std::vector<RankEntry> with_sizes(std::vector<uint64_t> sizes) {
  std::vector<RankEntry> v;
  for (size_t i = 0; i < sizes.size(); ++i) {
    RankEntry e;
    e.rank = static_cast<int>(i);
    e.bytes = sizes[i];
    v.push_back(e);
  }
  return v;
}

TEST(Partition, LargestFirstToLeastLoaded) {
  auto shares = partition_by_bytes(with_sizes({10, 7, 5, 4}), 2);
  ASSERT_EQ(shares.size(), 2u);
  EXPECT_EQ(shares[0], (std::vector<size_t>{0, 3}));
  EXPECT_EQ(shares[1], (std::vector<size_t>{1, 2}));
}

TEST(Partition, EveryEntryExactlyOnceAndBalanced) {
  std::vector<uint64_t> sizes;
  for (int i = 0; i < 1000; ++i) sizes.push_back(static_cast<uint64_t>((i * 7919) % 1000 + 1));
  for (int p : {1, 2, 3, 4, 7}) {
    auto shares = partition_by_bytes(with_sizes(sizes), p);
    std::vector<int> seen(sizes.size(), 0);
    std::vector<uint64_t> load;
    for (const auto& s : shares) {
      uint64_t l = 0;
      for (size_t i : s) {
        ++seen[i];
        l += sizes[i];
      }
      load.push_back(l);
    }
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
    auto [mn, mx] = std::minmax_element(load.begin(), load.end());
    // LPT: the spread is at most the largest item.
    EXPECT_LE(*mx - *mn, 1000u) << "p=" << p;
  }
}

TEST(Partition, MoreProcessesThanRanks) {
  auto shares = partition_by_bytes(with_sizes({5, 3}), 4);
  ASSERT_EQ(shares.size(), 4u);
  EXPECT_EQ(shares[0].size() + shares[1].size() + shares[2].size() + shares[3].size(), 2u);
}

}  // namespace
}  // namespace cs::cluster
