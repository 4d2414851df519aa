// stats::ExactSum: the same bits whatever the order of the terms, the correctly rounded sum where a
// plain double sum loses bits, and terms beyond its fixed-point range summed apart.

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include "stats/exact_sum.h"

namespace cs::stats {
namespace {

double sum_of(const std::vector<double>& v) {
  ExactSum s;
  for (double x : v) s.add(x);
  return s.value();
}

TEST(ExactSum, OrderDoesNotMatter) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mag(-12, 9);
  std::vector<double> v;
  for (int i = 0; i < 2000; ++i) {
    const double x = std::pow(10.0, mag(rng));
    v.push_back(i % 3 == 0 ? -x : x);
  }
  const uint64_t first = std::bit_cast<uint64_t>(sum_of(v));
  bool plain_differs = false;
  double plain0 = 0;
  for (double x : v) plain0 += x;
  for (int k = 0; k < 20; ++k) {
    std::shuffle(v.begin(), v.end(), rng);
    EXPECT_EQ(std::bit_cast<uint64_t>(sum_of(v)), first);
    double plain = 0;
    for (double x : v) plain += x;
    plain_differs |= plain != plain0;
  }
  EXPECT_TRUE(plain_differs);  // the plain sum of these terms does depend on their order
}

TEST(ExactSum, RoundsOnceAtTheEnd) {
  EXPECT_EQ(sum_of({0.1, 1e9, -1e9}), 0.1);
  double plain = 0.1;
  plain += 1e9;
  plain -= 1e9;
  EXPECT_NE(plain, 0.1);
  EXPECT_EQ(sum_of({1.0 / 3, 1.0 / 3, 1.0 / 3}), 1.0);
  EXPECT_EQ(sum_of({0.125, -0.5, 0.25}), -0.125);  // exact terms, exact sum
  EXPECT_EQ(sum_of({}), 0.0);
}

TEST(ExactSum, TermsBeyondTheRangeAreSummedApart) {
  EXPECT_EQ(sum_of({1e12, 2.5, -1e12}), 2.5);
  EXPECT_EQ(sum_of({0x1p32, 1.0}), 0x1p32 + 1.0);
  EXPECT_TRUE(std::isinf(sum_of({1.0, INFINITY})));
  EXPECT_TRUE(std::isnan(sum_of({1.0, NAN})));
  EXPECT_EQ(sum_of({0x1p-70, 0x1p-70, 1.0}), 1.0);  // below 2^-64: dropped
}

}  // namespace
}  // namespace cs::stats
