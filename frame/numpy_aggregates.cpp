#include "frame/numpy_aggregates.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <new>

#include "frame/pandas_math.h"

namespace cs::frame {

namespace {

// numpy's _lerp: a + (b - a) * t, or b - (b - a) * (1 - t) from t = 0.5 on.
double lerp(double a, double b, double t) {
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

// Lives in SQLite's zero-filled aggregate context.
struct Collected {
  std::vector<double>* values;
  bool any_real;
};

void step(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto* c = static_cast<Collected*>(sqlite3_aggregate_context(ctx, sizeof(Collected)));
  if (!c) return sqlite3_result_error_nomem(ctx);
  if (!c->values) c->values = new (std::nothrow) std::vector<double>();
  if (!c->values) return sqlite3_result_error_nomem(ctx);
  const int t = sqlite3_value_type(argv[0]);
  if (t == SQLITE_NULL) return;  // numpy would fail on None; such rows do not occur
  if (t != SQLITE_INTEGER) c->any_real = true;
  c->values->push_back(sqlite3_value_double(argv[0]));
}

template <int kind>
void final(sqlite3_context* ctx) {
  auto* c = static_cast<Collected*>(sqlite3_aggregate_context(ctx, 0));
  if (!c || !c->values || c->values->empty()) {
    if (c) delete c->values;
    return sqlite3_result_null(ctx);
  }
  double r = 0;
  if constexpr (kind == 0) r = numpy_median(*c->values);
  if constexpr (kind == 1) r = numpy_quantile(*c->values, 0.25);
  if constexpr (kind == 2) r = numpy_quantile(*c->values, 0.75);
  if constexpr (kind == 3) r = numpy_std(*c->values, !c->any_real);
  delete c->values;
  c->values = nullptr;
  sqlite3_result_double(ctx, r);
}

}  // namespace

double numpy_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size(), half = n / 2;
  if (n % 2 == 1) return v[half];
  return (0.0 + v[half - 1] + v[half]) / 2.0;
}

double numpy_quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  const double virtual_index = static_cast<double>(n - 1) * q;
  const double prev = std::floor(virtual_index);
  const size_t lo = static_cast<size_t>(prev);
  const size_t hi = std::min(lo + 1, n - 1);
  return lerp(v[lo], v[hi], virtual_index - prev);
}

double numpy_std(const std::vector<double>& v, bool integers) {
  const size_t n = v.size();
  double sum = 0.0;
  if (integers) {
    constexpr size_t kBuffer = 8192;
    for (size_t i = 0; i < n; i += kBuffer)
      sum += numpy_sum(
          std::vector<double>(v.begin() + static_cast<std::ptrdiff_t>(i),
                              v.begin() + static_cast<std::ptrdiff_t>(std::min(n, i + kBuffer))));
  } else {
    sum = numpy_sum(v);
  }
  const double mean = sum / static_cast<double>(n);
  std::vector<double> sq(n);
  for (size_t i = 0; i < n; ++i) {
    const double d = v[i] - mean;
    sq[i] = d * d;
  }
  return std::sqrt(numpy_sum(sq) / static_cast<double>(n));
}

bool register_numpy_aggregates(sqlite3* db) {
  const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
  return sqlite3_create_function(db, "median", 1, flags, nullptr, nullptr, step, final<0>) ==
             SQLITE_OK &&
         sqlite3_create_function(db, "lower_quartile", 1, flags, nullptr, nullptr, step,
                                 final<1>) == SQLITE_OK &&
         sqlite3_create_function(db, "upper_quartile", 1, flags, nullptr, nullptr, step,
                                 final<2>) == SQLITE_OK &&
         sqlite3_create_function(db, "stdev", 1, flags, nullptr, nullptr, step, final<3>) ==
             SQLITE_OK;
}

}  // namespace cs::frame
