#pragma once
// Outlier tests for small samples of cross-rank values (one value per rank of a group):
// Dixon's Q test at 99.5% confidence for 3 <= n <= 100, the 3-sigma rule beyond, and
// median/MAD robust z-scores.
//
//   std::vector<double> wait = {11.2, 10.9, 0.4, 11.5};
//   extreme_outlier(wait, Tail::kLow)  -> 2   (Q = (10.9-0.4)/(11.5-0.4) = 0.946 > 0.926)
//   robust_z(wait)                     -> {0.34, -0.34, -23.9, 1.01}  (median 11.05, MAD 0.3)

#include <cstddef>
#include <vector>

namespace cs::stats {

enum class Tail { kLow, kHigh };

// Median of v (NaN when empty). Takes a copy: v is not reordered.
double median(std::vector<double> v);
// Median absolute deviation around `center` (NaN when empty).
double mad(const std::vector<double>& v, double center);

// Robust standard deviation: 1.4826 * MAD (the normal-consistent scale); when the MAD is 0, the
// mean absolute deviation around the median times 1.2533; 0 when every value is equal, NaN when
// empty. O(n). {10, 11, 12, 13, 50} -> 1.4826 (MAD 1 around the median 12).
double robust_sigma(const std::vector<double>& v);

// Robust z-score of every value: 0.6745 * (x - median) / MAD. When the MAD is 0 (more than half
// the values equal) the mean absolute deviation scaled by 1.2533 stands in (Iglewicz & Hoaglin);
// when that is 0 too, values equal to the median get 0 and the others +-infinity.
std::vector<double> robust_z(const std::vector<double>& v);

// Critical value of Dixon's r10 statistic Q = gap / range at 99.5% confidence (one-sided; the
// same as the usual two-sided 99% table) for a sample of n, 3 <= n <= 100; NaN outside.
// n = 3..10 from Rorabacher (1991); n = 11..100 computed here by simulation of normal samples
// (4e5 samples per n up to 30, 1.5e5 beyond), smoothed by a cubic fit of log Q on log n
// (residuals below 0.004).
double dixon_q_critical(size_t n);

// Dixon's Q statistic for the most extreme value on `tail`: (x2 - x1) / (xn - x1) for the low
// end, (xn - xn-1) / (xn - x1) for the high end; 0 when all values are equal or n < 3.
double dixon_q(const std::vector<double>& v, Tail tail);

// Index of the most extreme value on `tail` when it is an outlier, else -1:
// 3 <= n <= 100: Dixon's Q test at 99.5%; n > 100: beyond mean -+ 3 sigma; n < 3: never.
// Ties for the extreme value: the lowest index is returned. NaN values are ignored.
long extreme_outlier(const std::vector<double>& v, Tail tail);

// Indices whose robust z-score is at or beyond `threshold` on `tail` (z <= -threshold for kLow,
// z >= threshold for kHigh). 3.5 is the usual cut (Iglewicz & Hoaglin).
std::vector<size_t> robust_outliers(const std::vector<double>& v, Tail tail,
                                    double threshold = 3.5);

}  // namespace cs::stats
