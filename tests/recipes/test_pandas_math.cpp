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

#include <cmath>
#include <vector>

#include "recipes/pandas_math.h"
#include "recipes/pandas_sort.h"

using namespace cs::recipes;

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
