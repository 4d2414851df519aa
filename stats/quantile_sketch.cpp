#include "stats/quantile_sketch.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace cs::stats {

namespace {
// Values at or below this go to the zero bucket (durations are never meaningfully smaller:
// profilers report microseconds with at most nanosecond resolution).
constexpr double kMinPositive = 1e-9;
}  // namespace

QuantileSketch::QuantileSketch(double alpha) {
  if (!(alpha > 0.0 && alpha < 1.0)) alpha = 0.01;
  alpha_ = alpha;
  gamma_ = (1.0 + alpha) / (1.0 - alpha);
  log_gamma_ = std::log(gamma_);
}

// Bucket i holds (gamma^(i-1), gamma^i]; its representative value 2*gamma^i/(gamma+1) is within
// alpha (relative) of every value in the bucket.
int32_t QuantileSketch::bucket_of(double x) const {
  return static_cast<int32_t>(std::ceil(std::log(x) / log_gamma_));
}

double QuantileSketch::value_of(int32_t bucket) const {
  return 2.0 * std::exp(static_cast<double>(bucket) * log_gamma_) / (gamma_ + 1.0);
}

void QuantileSketch::add(double x, int64_t count) {
  if (count <= 0 || std::isnan(x)) return;
  if (std::isinf(x)) x = x > 0 ? std::numeric_limits<double>::max() : 0.0;
  if (x <= kMinPositive) {
    zeros_ += count;
  } else {
    buckets_[bucket_of(x)] += count;
  }
  count_ += count;
}

void QuantileSketch::merge(const QuantileSketch& o) {
  if (o.count_ == 0) return;
  if (o.alpha_ == alpha_) {
    for (const auto& [b, c] : o.buckets_) buckets_[b] += c;
  } else {
    // Different accuracy: re-bucket the other sketch's representative values (the error bounds
    // add up, so callers should use one alpha everywhere).
    for (const auto& [b, c] : o.buckets_) buckets_[bucket_of(o.value_of(b))] += c;
  }
  zeros_ += o.zeros_;
  count_ += o.count_;
}

// Lower quantile: the value of rank floor(q * (n - 1)) (0-based) in sorted order, as DDSketch
// defines it. The returned value is within ±alpha (relative) of that sample.
double QuantileSketch::quantile(double q) const {
  if (count_ == 0 || std::isnan(q)) return std::numeric_limits<double>::quiet_NaN();
  if (q < 0) q = 0;
  if (q > 1) q = 1;
  const auto rank = static_cast<int64_t>(std::floor(q * static_cast<double>(count_ - 1)));
  int64_t seen = zeros_;
  if (rank < seen) return 0.0;
  for (const auto& [b, c] : buckets_) {
    seen += c;
    if (rank < seen) return value_of(b);
  }
  return value_of(buckets_.rbegin()->first);  // not reached: counts add up to count_
}

void QuantileSketch::pack(io::ByteWriter& w) const {
  w.put(alpha_);
  w.put(count_);
  w.put(zeros_);
  w.put<uint32_t>(static_cast<uint32_t>(buckets_.size()));
  for (const auto& [b, c] : buckets_) {
    w.put(b);
    w.put(c);
  }
}

QuantileSketch QuantileSketch::unpack(io::ByteReader& r) {
  QuantileSketch s(r.get<double>());
  s.count_ = r.get<int64_t>();
  s.zeros_ = r.get<int64_t>();
  const auto n = r.get<uint32_t>();
  int64_t total = s.zeros_;
  for (uint32_t i = 0; i < n; ++i) {
    const auto b = r.get<int32_t>();
    const auto c = r.get<int64_t>();
    s.buckets_.emplace_hint(s.buckets_.end(), b, c);
    total += c;
  }
  if (total != s.count_) throw std::runtime_error("QuantileSketch::unpack: inconsistent counts");
  return s;
}

}  // namespace cs::stats
