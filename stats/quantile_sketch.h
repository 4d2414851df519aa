#pragma once
// A mergeable quantile sketch with a relative-error guarantee (DDSketch-style logarithmic
// buckets): quantile(q) is within ±alpha (relative) of a true sample quantile for positive values.
// Merging is exact and order-independent (bucket counts add), so results are identical whatever
// the number of MPI processes.

#include <cstdint>
#include <map>

#include "io/byte_buffer.h"

namespace cs::stats {

class QuantileSketch {
 public:
  // alpha: relative accuracy, default 1%.
  explicit QuantileSketch(double alpha = 0.01);

  void add(double x, int64_t count = 1);
  void merge(const QuantileSketch& o);
  // q in [0, 1]. NaN when empty.
  double quantile(double q) const;
  int64_t count() const { return count_; }
  double relative_accuracy() const { return alpha_; }

  void pack(io::ByteWriter& w) const;
  static QuantileSketch unpack(io::ByteReader& r);

 private:
  int32_t bucket_of(double x) const;
  double value_of(int32_t bucket) const;

  double alpha_;
  double gamma_;
  double log_gamma_;
  std::map<int32_t, int64_t> buckets_;  // positive values
  int64_t zeros_ = 0;                   // x <= tiny (zero or negative durations)
  int64_t count_ = 0;
};

}  // namespace cs::stats
