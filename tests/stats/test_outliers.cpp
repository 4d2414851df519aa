// Dixon's Q test, 3-sigma rule, median/MAD robust z-scores.

#include "stats/outliers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace cs::stats {
namespace {

TEST(Outliers, Median) {
  EXPECT_TRUE(std::isnan(median({})));
  EXPECT_EQ(median({3}), 3);
  EXPECT_EQ(median({5, 1, 3}), 3);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median({1, std::nan(""), 3}), 2);  // NaN ignored
}

TEST(Outliers, HeaderExample) {
  std::vector<double> wait = {11.2, 10.9, 0.4, 11.5};
  EXPECT_NEAR(dixon_q(wait, Tail::kLow), 10.5 / 11.1, 1e-12);
  EXPECT_EQ(extreme_outlier(wait, Tail::kLow), 2);
  EXPECT_EQ(extreme_outlier(wait, Tail::kHigh), -1);
  auto z = robust_z(wait);
  EXPECT_NEAR(z[2], -10.65 * 0.6745 / 0.3, 1e-9);
  EXPECT_NEAR(z[3], 0.45 * 0.6745 / 0.3, 1e-9);
  EXPECT_EQ(robust_outliers(wait, Tail::kLow), std::vector<size_t>{2});
  EXPECT_TRUE(robust_outliers(wait, Tail::kHigh).empty());
}

TEST(Outliers, DixonTableShape) {
  EXPECT_TRUE(std::isnan(dixon_q_critical(2)));
  EXPECT_TRUE(std::isnan(dixon_q_critical(101)));
  EXPECT_DOUBLE_EQ(dixon_q_critical(3), 0.994);
  EXPECT_DOUBLE_EQ(dixon_q_critical(10), 0.568);
  for (size_t n = 4; n <= 100; ++n) EXPECT_LE(dixon_q_critical(n), dixon_q_critical(n - 1));
}

// The table's false-positive rate on normal data must be near 0.5% (it is a 99.5% test).
TEST(Outliers, DixonFalsePositiveRateOnNormalData) {
  std::mt19937_64 rng(77);
  std::normal_distribution<double> d(10, 1);
  for (size_t n : {3, 5, 8, 16, 40, 100}) {
    int hits = 0;
    const int trials = 20000;
    for (int t = 0; t < trials; ++t) {
      std::vector<double> v(n);
      for (auto& x : v) x = d(rng);
      if (extreme_outlier(v, Tail::kLow) >= 0) ++hits;
    }
    const double rate = static_cast<double>(hits) / trials;
    EXPECT_GT(rate, 0.002) << "n=" << n;
    EXPECT_LT(rate, 0.009) << "n=" << n;
  }
}

TEST(Outliers, DixonFindsPlantedOutlier) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> d(10, 0.2);
  for (size_t n : {4, 8, 32, 100}) {
    std::vector<double> v(n);
    for (auto& x : v) x = d(rng);
    v[n / 2] = 2;  // waits far less than the others
    EXPECT_EQ(extreme_outlier(v, Tail::kLow), static_cast<long>(n / 2)) << n;
    v[n / 2] = 30;
    EXPECT_EQ(extreme_outlier(v, Tail::kHigh), static_cast<long>(n / 2)) << n;
  }
  // n = 3 needs Q > 0.994: the gap must be ~170x the spread of the other two.
  EXPECT_EQ(extreme_outlier({10.0, 10.1, 2.0}, Tail::kLow), -1);  // Q = 0.988
  EXPECT_EQ(extreme_outlier({10.0, 10.04, 2.0}, Tail::kLow), 2);  // Q = 0.995
}

TEST(Outliers, ThreeSigmaBeyondHundred) {
  std::vector<double> v(200, 10.0);
  for (size_t i = 0; i < v.size(); ++i) v[i] += (i % 7) * 0.1;
  EXPECT_EQ(extreme_outlier(v, Tail::kLow), -1);
  v[150] = 5;
  EXPECT_EQ(extreme_outlier(v, Tail::kLow), 150);
  EXPECT_EQ(extreme_outlier(std::vector<double>(200, 1.0), Tail::kLow), -1);  // sigma 0
}

TEST(Outliers, DegenerateInputs) {
  EXPECT_EQ(extreme_outlier({}, Tail::kLow), -1);
  EXPECT_EQ(extreme_outlier({1, 100}, Tail::kLow), -1);
  EXPECT_EQ(extreme_outlier({5, 5, 5, 5}, Tail::kLow), -1);
  EXPECT_EQ(dixon_q({5, 5, 5}, Tail::kHigh), 0.0);
  // MAD 0 (most values equal): mean absolute deviation stands in.
  auto z = robust_z({1, 1, 1, 1, 5});
  EXPECT_EQ(z[0], 0.0);
  EXPECT_NEAR(z[4], 4.0 / (1.2533 * 0.8), 1e-9);
  auto z0 = robust_z({2, 2, 2});
  EXPECT_EQ(z0, std::vector<double>({0, 0, 0}));
}

}  // namespace
}  // namespace cs::stats
