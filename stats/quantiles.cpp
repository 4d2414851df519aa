#include "stats/quantiles.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace cs::stats {

namespace {

// numpy's _lerp between the order statistics a = x[lo] and b = x[lo+1], t = h - lo.
double interpolate(double a, double b, double t) {
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

}  // namespace

double exact_quantile(std::vector<double>& v, double q) {
  if (v.empty() || std::isnan(q)) return std::numeric_limits<double>::quiet_NaN();
  q = std::clamp(q, 0.0, 1.0);
  const double h = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(h));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
  const double a = v[lo];
  if (lo + 1 >= v.size()) return a;
  const double b = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end());
  return interpolate(a, b, h - static_cast<double>(lo));
}

double sorted_quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty() || std::isnan(q)) return std::numeric_limits<double>::quiet_NaN();
  q = std::clamp(q, 0.0, 1.0);
  const double h = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted[lo];
  return interpolate(sorted[lo], sorted[lo + 1], h - static_cast<double>(lo));
}

void Quantiles::add(double x, int64_t count) {
  if (count <= 0 || std::isnan(x)) return;
  count_ += count;
  if (exact_ && count_ <= kExactLimit) {
    samples_.insert(samples_.end(), static_cast<size_t>(count), x);
    sorted_ = false;
    return;
  }
  drop_exact();
  sketch_.add(x, count);
}

void Quantiles::add_approximate(double x, int64_t count) {
  if (count <= 0 || std::isnan(x)) return;
  drop_exact();
  count_ += count;
  sketch_.add(x, count);
}

void Quantiles::drop_exact() {
  if (!exact_) return;
  for (double s : samples_) sketch_.add(s);
  samples_.clear();
  samples_.shrink_to_fit();
  exact_ = false;
  sorted_ = false;
}

void Quantiles::merge(const Quantiles& o) {
  if (o.count_ == 0) return;
  if (exact_ && o.exact_ && count_ + o.count_ <= kExactLimit) {
    samples_.insert(samples_.end(), o.samples_.begin(), o.samples_.end());
    sorted_ = false;
    count_ += o.count_;
    return;
  }
  merge_into_sketch(o);
}

bool Quantiles::merge_counting(const Quantiles& o) {
  if (o.count_ == 0) return false;
  if (o.elsewhere_ > 0) throw std::logic_error("Quantiles::merge_counting: samples elsewhere");
  if (exact_ && o.exact_ && count_ + o.count_ <= kExactLimit) {
    count_ += o.count_;
    elsewhere_ += o.count_;
    return true;
  }
  merge_into_sketch(o);
  return false;
}

void Quantiles::give_back(const double* p, size_t n) {
  if (static_cast<int64_t>(n) > elsewhere_)
    throw std::logic_error("Quantiles::give_back: more samples than were left out");
  if (exact_) {
    // Room for every sample still to come at once: growing by doubling would hold up to twice
    // the samples (a key's are up to 8 MiB).
    samples_.reserve(samples_.size() + static_cast<size_t>(elsewhere_));
    samples_.insert(samples_.end(), p, p + n);
    sorted_ = false;
  }
  elsewhere_ -= static_cast<int64_t>(n);
  if (exact_) return;
  for (size_t i = 0; i < n; ++i) sketch_.add(p[i]);
}

void Quantiles::merge_into_sketch(const Quantiles& o) {
  drop_exact();
  if (o.exact_) {
    for (double s : o.samples_) sketch_.add(s);
  } else {
    sketch_.merge(o.sketch_);
  }
  count_ += o.count_;
}

double Quantiles::quantile(double q) const {
  if (elsewhere_ > 0) throw std::logic_error("Quantiles::quantile: samples not given back");
  if (!exact_) return sketch_.quantile(q);
  if (sorted_) return sorted_quantile(samples_, q);
  std::vector<double> v = samples_;
  return exact_quantile(v, q);
}

void Quantiles::sort_samples() {
  if (!exact_ || sorted_) return;
  std::sort(samples_.begin(), samples_.end());
  sorted_ = true;
}

void Quantiles::pack(io::ByteWriter& w) const {
  if (elsewhere_ > 0) throw std::logic_error("Quantiles::pack: samples not given back");
  w.put<uint8_t>(exact_ ? 1 : 0);
  w.put(count_);
  if (!exact_) {
    sketch_.pack(w);
    return;
  }
  w.put<uint64_t>(samples_.size());
  if (!samples_.empty()) w.bytes(samples_.data(), samples_.size() * sizeof(double));
}

Quantiles Quantiles::unpack(io::ByteReader& r) {
  Quantiles d;
  d.exact_ = r.get<uint8_t>() != 0;
  d.count_ = r.get<int64_t>();
  if (!d.exact_) {
    d.sketch_ = QuantileSketch::unpack(r);
    if (d.sketch_.count() != d.count_)
      throw std::runtime_error("Quantiles::unpack: inconsistent counts");
    return d;
  }
  const auto n = r.get<uint64_t>();
  if (n != static_cast<uint64_t>(d.count_) || n > static_cast<uint64_t>(kExactLimit))
    throw std::runtime_error("Quantiles::unpack: inconsistent sample count");
  d.samples_.resize(n);
  if (n > 0) r.bytes(d.samples_.data(), n * sizeof(double));
  return d;
}

}  // namespace cs::stats
