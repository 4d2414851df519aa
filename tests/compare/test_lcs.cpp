// Exact LCS alignment (Hirschberg + bit-parallel rows) against a plain quadratic DP.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "compare/lcs.h"

namespace cs::compare {
namespace {

size_t dp_length(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  std::vector<std::vector<uint32_t>> d(a.size() + 1, std::vector<uint32_t>(b.size() + 1, 0));
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j)
      d[i][j] = a[i - 1] == b[j - 1] ? d[i - 1][j - 1] + 1 : std::max(d[i - 1][j], d[i][j - 1]);
  return d[a.size()][b.size()];
}

// The pairs must be strictly increasing in both indices and match equal symbols.
void expect_valid(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                  const std::vector<std::pair<uint32_t, uint32_t>>& p) {
  for (size_t k = 0; k < p.size(); ++k) {
    ASSERT_LT(p[k].first, a.size());
    ASSERT_LT(p[k].second, b.size());
    EXPECT_EQ(a[p[k].first], b[p[k].second]);
    if (k > 0) {
      EXPECT_GT(p[k].first, p[k - 1].first);
      EXPECT_GT(p[k].second, p[k - 1].second);
    }
  }
}

TEST(Lcs, SmallExamples) {
  std::vector<uint32_t> a{1, 2, 3, 4}, b{1, 3, 4, 5};
  auto p = lcs_align(a, b);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0], std::make_pair(0u, 0u));
  EXPECT_EQ(p[1], std::make_pair(2u, 1u));
  EXPECT_EQ(p[2], std::make_pair(3u, 2u));
  EXPECT_EQ(lcs_length(a, b), 3u);
  EXPECT_TRUE(lcs_align(std::vector<uint32_t>{}, b).empty());
  EXPECT_TRUE(lcs_align(a, std::vector<uint32_t>{}).empty());
  EXPECT_TRUE(lcs_align(std::vector<uint32_t>{7, 8}, std::vector<uint32_t>{9}).empty());
}

TEST(Lcs, RandomAgainstQuadraticDp) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 300; ++trial) {
    const size_t n = rng() % 700, m = rng() % 700;
    const uint32_t alphabet = 1 + rng() % (trial % 3 == 0 ? 4 : 60);
    std::vector<uint32_t> a(n), b(m);
    for (auto& x : a) x = 1000 + rng() % alphabet;  // sparse symbol ids: they get remapped
    for (auto& x : b) x = 1000 + rng() % alphabet;
    const auto p = lcs_align(a, b);
    expect_valid(a, b, p);
    const size_t want = dp_length(a, b);
    ASSERT_EQ(p.size(), want) << "trial " << trial << " n=" << n << " m=" << m;
    ASSERT_EQ(lcs_length(a, b), want);
  }
}

TEST(Lcs, LongSequencesWithEditsCrossWordBoundaries) {
  // 5,000 ops with a few insertions/deletions, like two versions of one model.
  std::mt19937 rng(7);
  std::vector<uint32_t> a(5000);
  for (auto& x : a) x = rng() % 300;
  std::vector<uint32_t> b;
  for (size_t i = 0; i < a.size(); ++i) {
    if (i % 97 == 5) continue;                  // deleted in b
    if (i % 131 == 7) b.push_back(100000 + i);  // inserted in b
    b.push_back(a[i]);
  }
  const auto p = lcs_align(a, b);
  expect_valid(a, b, p);
  EXPECT_EQ(p.size(), lcs_length(a, b));
  EXPECT_GE(p.size(), a.size() - a.size() / 97 - 1);
}

}  // namespace
}  // namespace cs::compare
