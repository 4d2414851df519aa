#include "stats/outliers.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace cs::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Dixon r10 critical values at 99.5% (one-sided), n = 3..100. See dixon_q_critical().
constexpr std::array<double, 98> kDixon995 = {
    0.994, 0.926, 0.821, 0.740, 0.680, 0.634, 0.598, 0.568, 0.541, 0.520,  // n = 3..12
    0.503, 0.488, 0.474, 0.462, 0.452, 0.442, 0.434, 0.426, 0.418, 0.412,  // n = 13..22
    0.406, 0.400, 0.394, 0.389, 0.385, 0.380, 0.376, 0.372, 0.369, 0.365,  // n = 23..32
    0.362, 0.359, 0.356, 0.353, 0.350, 0.347, 0.345, 0.342, 0.340, 0.338,  // n = 33..42
    0.336, 0.334, 0.332, 0.330, 0.328, 0.326, 0.324, 0.323, 0.321, 0.319,  // n = 43..52
    0.318, 0.316, 0.315, 0.313, 0.312, 0.311, 0.309, 0.308, 0.307, 0.306,  // n = 53..62
    0.304, 0.303, 0.302, 0.301, 0.300, 0.299, 0.298, 0.297, 0.296, 0.295,  // n = 63..72
    0.294, 0.293, 0.292, 0.291, 0.290, 0.289, 0.288, 0.288, 0.287, 0.286,  // n = 73..82
    0.285, 0.284, 0.284, 0.283, 0.282, 0.281, 0.281, 0.280, 0.279, 0.279,  // n = 83..92
    0.278, 0.277, 0.277, 0.276, 0.275, 0.275, 0.274, 0.273,                // n = 93..100
};

std::vector<double> finite_values(const std::vector<double>& v) {
  std::vector<double> out;
  out.reserve(v.size());
  for (double x : v)
    if (!std::isnan(x)) out.push_back(x);
  return out;
}

}  // namespace

double median(std::vector<double> v) {
  v = finite_values(v);
  if (v.empty()) return kNaN;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double hi = v[mid];
  if (v.size() % 2 == 1) return hi;
  const double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return lo + (hi - lo) / 2;
}

double mad(const std::vector<double>& v, double center) {
  std::vector<double> dev;
  dev.reserve(v.size());
  for (double x : v)
    if (!std::isnan(x)) dev.push_back(std::abs(x - center));
  return median(std::move(dev));
}

double robust_sigma(const std::vector<double>& v) {
  const double med = median(v);
  if (std::isnan(med)) return kNaN;
  const double scale = 1.4826 * mad(v, med);
  if (scale > 0) return scale;
  double sum = 0;
  size_t n = 0;
  for (double x : v)
    if (!std::isnan(x)) sum += std::abs(x - med), ++n;
  return n > 0 ? 1.2533 * sum / static_cast<double>(n) : 0.0;
}

std::vector<double> robust_z(const std::vector<double>& v) {
  std::vector<double> z(v.size(), 0.0);
  const double med = median(v);
  if (std::isnan(med)) return z;
  double scale = mad(v, med) / 0.6745;
  if (!(scale > 0)) {
    double sum = 0;
    size_t n = 0;
    for (double x : v)
      if (!std::isnan(x)) sum += std::abs(x - med), ++n;
    scale = n > 0 ? 1.2533 * sum / static_cast<double>(n) : 0.0;
  }
  for (size_t i = 0; i < v.size(); ++i) {
    const double d = v[i] - med;
    if (std::isnan(d)) {
      z[i] = kNaN;
    } else if (scale > 0) {
      z[i] = d / scale;
    } else {
      z[i] = d == 0 ? 0.0 : std::copysign(std::numeric_limits<double>::infinity(), d);
    }
  }
  return z;
}

double dixon_q_critical(size_t n) {
  if (n < 3 || n > 100) return kNaN;
  return kDixon995[n - 3];
}

double dixon_q(const std::vector<double>& v, Tail tail) {
  auto s = finite_values(v);
  if (s.size() < 3) return 0.0;
  std::sort(s.begin(), s.end());
  const double range = s.back() - s.front();
  if (!(range > 0)) return 0.0;
  const size_t n = s.size();
  return tail == Tail::kLow ? (s[1] - s[0]) / range : (s[n - 1] - s[n - 2]) / range;
}

long extreme_outlier(const std::vector<double>& v, Tail tail) {
  long idx = -1;
  size_t n = 0;
  double sum = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (std::isnan(v[i])) continue;
    ++n;
    sum += v[i];
    if (idx < 0 || (tail == Tail::kLow ? v[i] < v[static_cast<size_t>(idx)]
                                       : v[i] > v[static_cast<size_t>(idx)]))
      idx = static_cast<long>(i);
  }
  if (n < 3) return -1;
  if (n <= 100) return dixon_q(v, tail) > dixon_q_critical(n) ? idx : -1;
  const double mean = sum / static_cast<double>(n);
  double ss = 0;
  for (double x : v)
    if (!std::isnan(x)) ss += (x - mean) * (x - mean);
  const double sigma = std::sqrt(ss / static_cast<double>(n));
  if (!(sigma > 0)) return -1;
  const double x = v[static_cast<size_t>(idx)];
  return (tail == Tail::kLow ? x < mean - 3 * sigma : x > mean + 3 * sigma) ? idx : -1;
}

std::vector<size_t> robust_outliers(const std::vector<double>& v, Tail tail, double threshold) {
  std::vector<size_t> out;
  const auto z = robust_z(v);
  for (size_t i = 0; i < z.size(); ++i)
    if (tail == Tail::kLow ? z[i] <= -threshold : z[i] >= threshold) out.push_back(i);
  return out;
}

}  // namespace cs::stats
