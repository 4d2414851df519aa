#include "frame/pandas_math.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cs::frame {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// numpy's pairwise_sum for doubles (PW_BLOCKSIZE 128, eight accumulators).
double pairwise(const double* a, size_t n) {
  if (n < 8) {
    double res = 0.0;
    for (size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= 128) {
    double r[8];
    for (size_t j = 0; j < 8; ++j) r[j] = a[j];
    size_t i = 8;
    for (; i < n - (n % 8); i += 8)
      for (size_t j = 0; j < 8; ++j) r[j] += a[i + j];
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  size_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise(a, n2) + pairwise(a + n2, n - n2);
}

}  // namespace

double kahan_sum(const std::vector<double>& v) {
  double sum = 0.0, comp = 0.0;
  for (double x : v) {
    if (std::isnan(x)) continue;
    const double y = x - comp;
    const double t = sum + y;
    comp = t - sum - y;
    sum = t;
  }
  return sum;
}

double group_mean(const std::vector<double>& v) {
  size_t n = 0;
  for (double x : v) n += !std::isnan(x);
  if (n == 0) return kNaN;
  return kahan_sum(v) / static_cast<double>(n);
}

double group_std(const std::vector<double>& v) {
  double mean = 0.0, ssq = 0.0;
  int64_t n = 0;
  for (double x : v) {
    if (std::isnan(x)) continue;
    ++n;
    const double old = mean;
    mean += (x - old) / static_cast<double>(n);
    ssq += (x - mean) * (x - old);
  }
  if (n <= 1) return kNaN;
  return std::sqrt(ssq / static_cast<double>(n - 1));
}

double quantile_linear(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return kNaN;
  const double idx = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(idx);
  const double frac = std::fmod(idx, 1.0);
  const double val = sorted[lo];
  if (lo + 1 >= sorted.size()) return val;
  const double next = sorted[lo + 1];
  return val + (next - val) * frac;
}

double numpy_sum(const std::vector<double>& v) {
  return pairwise(v.data(), v.size());
}

double series_mean(const std::vector<double>& v) {
  std::vector<double> filled(v.size());
  size_t n = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    filled[i] = std::isnan(v[i]) ? 0.0 : v[i];
    n += !std::isnan(v[i]);
  }
  return n == 0 ? kNaN : pairwise(filled.data(), filled.size()) / static_cast<double>(n);
}

double series_std(const std::vector<double>& v) {
  double sum = 0;
  size_t n = 0;
  for (double x : v)
    if (!std::isnan(x)) {
      sum += x;
      ++n;
    }
  if (n < 2) return kNaN;
  const double mean = sum / static_cast<double>(n);
  double sq = 0;
  for (double x : v)
    if (!std::isnan(x)) sq += (x - mean) * (x - mean);
  return std::sqrt(sq / static_cast<double>(n - 1));
}

double numpy_quantile_linear(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return kNaN;
  const double n = static_cast<double>(sorted.size());
  const double virtual_index = (n - 1.0) * q;
  const double below = std::floor(virtual_index);
  const double t = virtual_index - below;
  const size_t lo = static_cast<size_t>(std::max(0.0, std::min(below, n - 1)));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double a = sorted[lo], b = sorted[hi];
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

double numpy_round(double x, int decimals) {
  const double f = std::pow(10.0, decimals);
  return std::nearbyint(x * f) / f;
}

}  // namespace cs::frame
