#include "load/partition.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace cs::load {
namespace {

std::vector<load::RankEntry> with_sizes(std::vector<uint64_t> sizes) {
  std::vector<load::RankEntry> v;
  for (size_t i = 0; i < sizes.size(); ++i) {
    load::RankEntry e;
    e.rank = static_cast<int>(i);
    e.bytes = sizes[i];
    v.push_back(e);
  }
  return v;
}

TEST(Partition, LargestFirstToLeastLoaded) {
  auto shares = load::partition_by_bytes(with_sizes({10, 7, 5, 4}), 2);
  ASSERT_EQ(shares.size(), 2u);
  EXPECT_EQ(shares[0], (std::vector<size_t>{0, 3}));
  EXPECT_EQ(shares[1], (std::vector<size_t>{1, 2}));
}

TEST(Partition, EveryEntryExactlyOnceAndBalanced) {
  std::vector<uint64_t> sizes;
  for (int i = 0; i < 1000; ++i) sizes.push_back(static_cast<uint64_t>((i * 7919) % 1000 + 1));
  for (int p : {1, 2, 3, 4, 7}) {
    auto shares = load::partition_by_bytes(with_sizes(sizes), p);
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

TEST(Partition, TheRootParsesLessForTheRanksItUnpacks) {
  std::vector<uint64_t> sizes(1000, 100);  // 100,000 bytes
  for (int p : {2, 4}) {
    auto shares = load::partition_by_bytes(with_sizes(sizes), p, 0.15);
    size_t seen = 0;
    for (const auto& s : shares) seen += s.size();
    EXPECT_EQ(seen, sizes.size());
    // Head start: 0.15 x 100,000 x (p-1)/p bytes; then every load (the root's head start
    // included) ends within one item of (items + head) / p.
    const double head = 0.15 * 1000 * (p - 1) / p;  // in items
    const double load = (1000 + head) / p;
    EXPECT_NEAR(static_cast<double>(shares[0].size()), load - head, 1.0) << "p=" << p;
    for (int q = 1; q < p; ++q)
      EXPECT_NEAR(static_cast<double>(shares[static_cast<size_t>(q)].size()), load, 1.0);
  }
  // With many processes the root may parse nothing at all.
  auto shares = load::partition_by_bytes(with_sizes(std::vector<uint64_t>(8, 100)), 8, 0.15);
  EXPECT_TRUE(shares[0].empty());
  // No cost, one process: as before.
  EXPECT_EQ(load::partition_by_bytes(with_sizes({10, 7, 5, 4}), 1, 0.15)[0].size(), 4u);
}

TEST(Partition, MoreProcessesThanRanks) {
  auto shares = load::partition_by_bytes(with_sizes({5, 3}), 4);
  ASSERT_EQ(shares.size(), 4u);
  EXPECT_EQ(shares[0].size() + shares[1].size() + shares[2].size() + shares[3].size(), 2u);
}

}  // namespace
}  // namespace cs::load
