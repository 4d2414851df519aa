// The reductions and sorts recipes/ does as pandas 1.5 / numpy 1.24 do them. Expected values
// computed with Debian 12's python3-pandas 1.5.3 and numpy 1.24.2:
//   import numpy as np, pandas as pd
//   v = [-44.563, 0.666, 0.002, 0.398, 0.085, 0.068, -1.667, -0.001, 3.423, -853.758, -0.004,
//        0.079]
//   pd.DataFrame({"k": [0] * 12, "v": v}).groupby("k")["v"].sum()   # Kahan: -895.2719999999999
//   pd.DataFrame({"a": v, "b": v, "c": ["x"] * 12})[["a", "b"]].sum()["a"]
//                                                     # pairwise: -895.2720000000002 (naive
//                                                     -895.272)
//   pd.Series([1.0, 2.0, 4.0, 8.0]).quantile(0.25)                 # 1.75
//   pd.DataFrame({"v": [2.0] * 17}).sort_values(by=["v"]).index    # numpy's quicksort order
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <vector>

#include "frame/pandas_math.h"
#include "frame/pandas_sort.h"

using namespace cs::frame;

TEST(PandasMath, QuantileLinear) {
  EXPECT_DOUBLE_EQ(quantile_linear({1.0, 2.0, 4.0, 8.0}, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(quantile_linear({1.0, 2.0, 4.0, 8.0}, 0.5), 3.0);
  EXPECT_DOUBLE_EQ(quantile_linear({5.0}, 0.75), 5.0);
}

TEST(PandasMath, StdIsSampleStd) {
  // pd.Series([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).std() == 2.138089935299395
  EXPECT_EQ(group_std({2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0}), 2.138089935299395);
  EXPECT_TRUE(std::isnan(group_std({1.0})));
}

TEST(PandasMath, SumsDifferAsPandasAndNumpyDo) {
  const std::vector<double> v = {-44.563, 0.666,  0.002, 0.398,    0.085,  0.068,
                                 -1.667,  -0.001, 3.423, -853.758, -0.004, 0.079};
  double naive = 0;
  for (double x : v) naive += x;
  EXPECT_EQ(naive, -895.272);
  EXPECT_EQ(kahan_sum(v), -895.2719999999999);  // groupby sum (Kahan)
  EXPECT_EQ(numpy_sum(v), -895.2720000000002);  // DataFrame.sum (pairwise)
}

// Series.describe() (mstx_sum) and groupby aggregations (the other recipes) differ in the last
// bits: pandas 1.5.3 + numpy 1.24.2 + bottleneck 1.3.5 (Debian bookworm) on these 34 values give
//   describe: mean 121265.43461764709 std 351219.90198739665 75% 74524.97475000001
//   groupby:  mean 121265.43461764707 std 351219.9019873966  75% 74524.97475
TEST(PandasMath, SeriesDescribeAsPandasWithBottleneckComputesIt) {
  std::vector<double> v = {6705.381,    1169117.208, 22354.576, 2152.062,   8259.876,  98089.904,
                           82381.721,   16614.016,   5571.87,   23136.442,  705.301,   1514.913,
                           113868.458,  8221.126,    47618.083, 269732.246, 83769.561, 22979.994,
                           1751466.034, 86942.094,   10626.215, 99249.628,  50954.736, 3789.647,
                           25591.88,    15689.573,   386.409,   15452.052,  12306.579, 8943.849,
                           748.302,     10622.184,   20300.399, 27162.458};
  EXPECT_EQ(series_mean(v), 121265.43461764709);
  EXPECT_EQ(group_mean(v), 121265.43461764707);
  EXPECT_EQ(series_std(v), 351219.90198739665);
  EXPECT_EQ(group_std(v), 351219.9019873966);
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(numpy_quantile_linear(sorted, 0.25), 8230.8135);
  EXPECT_EQ(numpy_quantile_linear(sorted, 0.5), 18457.2075);
  EXPECT_EQ(numpy_quantile_linear(sorted, 0.75), 74524.97475000001);
  EXPECT_EQ(quantile_linear(sorted, 0.75), 74524.97475);
  // NaN is skipped: pd.Series([1.0, nan, 3.0]).describe() -> mean 2.0, std 1.4142135623730951.
  EXPECT_EQ(series_mean({1.0, std::nan(""), 3.0}), 2.0);
  EXPECT_EQ(series_std({1.0, std::nan(""), 3.0}), 1.4142135623730951);
  EXPECT_TRUE(std::isnan(series_std({1.0, std::nan("")})));
  EXPECT_TRUE(std::isnan(series_mean({})));
}

TEST(PandasSort, QuicksortOrderOfTiesFromSeventeenRows) {
  // Up to 16 rows numpy insertion-sorts (stable); from 17 it partitions around a median of three.
  const std::vector<double> v(17, 2.0);
  const auto order = numpy_argsort(v.size(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  const std::vector<size_t> expected = {0, 14, 13, 12, 11, 10, 9, 15, 8, 6, 5, 4, 3, 2, 1, 7, 16};
  EXPECT_EQ(order, expected);
  const std::vector<double> w(16, 2.0);
  const auto stable = numpy_argsort(w.size(), [&](size_t a, size_t b) { return w[a] < w[b]; });
  for (size_t i = 0; i < stable.size(); ++i) EXPECT_EQ(stable[i], i);
}
