#include "load/partition.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>

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

using Shares = std::vector<std::vector<size_t>>;

// Every entry exactly once; process q's indices one range, right after process q-1's.
void expect_contiguous_in_order(const Shares& shares, size_t n) {
  size_t next = 0;
  for (size_t q = 0; q < shares.size(); ++q) {
    std::vector<size_t> s = shares[q];
    std::sort(s.begin(), s.end());
    for (size_t i : s) EXPECT_EQ(i, next++) << "process " << q;
  }
  EXPECT_EQ(next, n);
}

uint64_t load_of(const std::vector<size_t>& share, const std::vector<uint64_t>& sizes) {
  uint64_t l = 0;
  for (size_t i : share) l += std::max<uint64_t>(sizes[i], 1);
  return l;
}

TEST(Partition, ContiguousRangesWithTheLeastLargestLoad) {
  // Splits of {10, 7, 5, 4}: 10 | 16, 17 | 9, 22 | 4: the first has the least largest load.
  auto shares = load::partition_by_bytes(with_sizes({10, 7, 5, 4}), 2);
  ASSERT_EQ(shares.size(), 2u);
  EXPECT_EQ(shares[0], (std::vector<size_t>{0}));
  EXPECT_EQ(shares[1], (std::vector<size_t>{1, 2, 3}));
}

TEST(Partition, UnevenSizesByHand) {
  // {3,1,4,1,5,9,2,6} (31 bytes) over 3: with a limit of 13 the greedy fill needs 4 ranges
  // (3+1+4+1 | 5 | 9+2 | 6), with 14 it needs 3, so 14 is the least largest load. Process 0's
  // range may end after index 3 (9 bytes) or 4 (14); 9 is nearer its even share 31/3. Process 1
  // must then take 5+9 (2+6 is all process 2 can add without passing 14): loads 9, 14, 8.
  // Within a range, larger first (stable for equal sizes).
  auto shares = load::partition_by_bytes(with_sizes({3, 1, 4, 1, 5, 9, 2, 6}), 3);
  ASSERT_EQ(shares.size(), 3u);
  EXPECT_EQ(shares[0], (std::vector<size_t>{2, 0, 1, 3}));
  EXPECT_EQ(shares[1], (std::vector<size_t>{5, 4}));
  EXPECT_EQ(shares[2], (std::vector<size_t>{7, 6}));
}

TEST(Partition, OneHugeRank) {
  // {1,1,100,1,1}: over 2 the least largest load is 102 (100 shares with its two neighbours
  // on one side); 1+1 | 100+1+1 and 1+1+100 | 1+1 tie on the even share 52, the shorter wins.
  auto two = load::partition_by_bytes(with_sizes({1, 1, 100, 1, 1}), 2);
  EXPECT_EQ(two[0], (std::vector<size_t>{0, 1}));
  EXPECT_EQ(two[1], (std::vector<size_t>{2, 3, 4}));
  // Over 3 the huge rank gets a process to itself: loads 2, 100, 2.
  auto three = load::partition_by_bytes(with_sizes({1, 1, 100, 1, 1}), 3);
  EXPECT_EQ(three[0], (std::vector<size_t>{0, 1}));
  EXPECT_EQ(three[1], (std::vector<size_t>{2}));
  EXPECT_EQ(three[2], (std::vector<size_t>{3, 4}));
}

TEST(Partition, MoreProcessesThanRanks) {
  // Each rank its own process, the first processes first; the last ones idle.
  auto shares = load::partition_by_bytes(with_sizes({5, 3}), 4);
  ASSERT_EQ(shares.size(), 4u);
  EXPECT_EQ(shares[0], (std::vector<size_t>{0}));
  EXPECT_EQ(shares[1], (std::vector<size_t>{1}));
  EXPECT_TRUE(shares[2].empty());
  EXPECT_TRUE(shares[3].empty());
  // An empty directory counts as one byte, and no ranks at all gives empty shares.
  auto zeros = load::partition_by_bytes(with_sizes({0, 0, 0}), 2);
  EXPECT_EQ(zeros[0].size() + zeros[1].size(), 3u);
  EXPECT_EQ(load::partition_by_bytes(with_sizes({}), 3), Shares(3));
}

// The least largest load of a contiguous split, by trying every split (small n only).
uint64_t brute_force_best(const std::vector<uint64_t>& sizes, size_t p, uint64_t head) {
  uint64_t best = UINT64_MAX;
  std::function<void(size_t, size_t, uint64_t)> go = [&](size_t start, size_t q, uint64_t worst) {
    if (q + 1 == p) {
      uint64_t l = q == 0 ? head : 0;
      for (size_t i = start; i < sizes.size(); ++i) l += std::max<uint64_t>(sizes[i], 1);
      best = std::min(best, std::max(worst, l));
      return;
    }
    uint64_t l = q == 0 ? head : 0;
    for (size_t end = start;; ++end) {
      go(end, q + 1, std::max(worst, l));
      if (end == sizes.size()) break;
      l += std::max<uint64_t>(sizes[end], 1);
    }
  };
  go(0, 0, 0);
  return best;
}

TEST(Partition, MatchesTheBestContiguousSplitFoundByTryingAll) {
  uint64_t seed = 12345;
  auto next = [&] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return seed >> 33;
  };
  for (int round = 0; round < 200; ++round) {
    std::vector<uint64_t> sizes(1 + next() % 9);
    for (auto& s : sizes) s = next() % 4 == 0 ? next() % 1000 : next() % 50;  // some huge
    for (int p : {1, 2, 3, 4}) {
      const double cost = round % 2 ? 0.15 : 0.0;
      auto shares = load::partition_by_bytes(with_sizes(sizes), p, cost);
      ASSERT_EQ(shares.size(), static_cast<size_t>(p));
      expect_contiguous_in_order(shares, sizes.size());
      uint64_t total = 0;
      for (uint64_t s : sizes) total += std::max<uint64_t>(s, 1);
      const uint64_t head =
          p > 1 && cost > 0 ? static_cast<uint64_t>(cost * static_cast<double>(total) * (p - 1) / p)
                            : 0;
      uint64_t worst = 0;
      for (size_t q = 0; q < shares.size(); ++q)
        worst = std::max(worst, load_of(shares[q], sizes) + (q == 0 ? head : 0));
      EXPECT_EQ(worst, brute_force_best(sizes, static_cast<size_t>(p), head))
          << "round " << round << " p=" << p;
    }
  }
}

TEST(Partition, LargeListsAreBalancedWithinTheLargestRank) {
  std::vector<uint64_t> sizes;
  for (int i = 0; i < 1000; ++i) sizes.push_back(static_cast<uint64_t>((i * 7919) % 1000 + 1));
  const uint64_t total = std::accumulate(sizes.begin(), sizes.end(), uint64_t{0});
  for (int p : {1, 2, 3, 4, 7}) {
    auto shares = load::partition_by_bytes(with_sizes(sizes), p);
    expect_contiguous_in_order(shares, sizes.size());
    for (const auto& s : shares) {
      // Larger first inside a share; every load within one largest rank of the even share.
      for (size_t k = 1; k < s.size(); ++k) EXPECT_GE(sizes[s[k - 1]], sizes[s[k]]);
      const double even = static_cast<double>(total) / p;
      EXPECT_NEAR(static_cast<double>(load_of(s, sizes)), even, 1000.0) << "p=" << p;
    }
  }
}

TEST(Partition, TheRootParsesLessForTheRanksItUnpacks) {
  std::vector<uint64_t> sizes(1000, 100);  // 100,000 bytes
  for (int p : {2, 4}) {
    auto shares = load::partition_by_bytes(with_sizes(sizes), p, 0.15);
    expect_contiguous_in_order(shares, sizes.size());
    // Head start: 0.15 x 100,000 x (p-1)/p bytes; then every load (the root's head start
    // included) ends within one item of (items + head) / p.
    const double head = 0.15 * 1000 * (p - 1) / p;  // in items
    const double load = (1000 + head) / p;
    EXPECT_NEAR(static_cast<double>(shares[0].size()), load - head, 1.0) << "p=" << p;
    for (int q = 1; q < p; ++q)
      EXPECT_NEAR(static_cast<double>(shares[static_cast<size_t>(q)].size()), load, 1.0);
  }
  // At p = 2 by hand: head 7,500 bytes; the root taking 462 ranks gives loads 53,700 and 53,800,
  // 463 gives 53,800 and 53,700; both are 50 bytes from the even 46,250 for the root, the
  // shorter wins.
  EXPECT_EQ(load::partition_by_bytes(with_sizes(sizes), 2, 0.15)[0].size(), 462u);
  // With many processes the root may parse nothing at all: head 105 for 8 ranks of 100 over 8
  // processes, so 105 + 100 would pass the least largest load, 200 (two ranks on one process).
  auto shares = load::partition_by_bytes(with_sizes(std::vector<uint64_t>(8, 100)), 8, 0.15);
  EXPECT_TRUE(shares[0].empty());
  expect_contiguous_in_order(shares, 8);
  // No cost, one process: everything, larger first.
  EXPECT_EQ(load::partition_by_bytes(with_sizes({10, 7, 5, 4}), 1, 0.15)[0],
            (std::vector<size_t>{0, 1, 2, 3}));
}

}  // namespace
}  // namespace cs::load
