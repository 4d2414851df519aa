#include "stats/running_stats.h"

#include <cmath>

namespace cs::stats {

void RunningStats::add(double x, int rank) {
  ++count;
  sum += x;
  double delta = x - mean;
  mean += delta / static_cast<double>(count);
  m2 += delta * (x - mean);
  if (x < min) {
    min = x;
    min_rank = rank;
  }
  if (x > max) {
    max = x;
    max_rank = rank;
  }
}

void RunningStats::merge(const RunningStats& o) {
  if (o.count == 0) return;
  if (count == 0) {
    *this = o;
    return;
  }
  const double n_a = static_cast<double>(count), n_b = static_cast<double>(o.count);
  const double n = n_a + n_b;
  const double delta = o.mean - mean;
  mean += delta * n_b / n;
  m2 += o.m2 + delta * delta * n_a * n_b / n;
  count += o.count;
  sum += o.sum;
  if (o.min < min || (o.min == min && o.min_rank < min_rank)) {
    min = o.min;
    min_rank = o.min_rank;
  }
  if (o.max > max || (o.max == max && o.max_rank < max_rank)) {
    max = o.max;
    max_rank = o.max_rank;
  }
}

double RunningStats::stddev() const {
  return std::sqrt(variance());
}

void RunningStats::pack(io::ByteWriter& w) const {
  w.put(count);
  w.put(sum);
  w.put(mean);
  w.put(m2);
  w.put(min);
  w.put(max);
  w.put<int32_t>(min_rank);
  w.put<int32_t>(max_rank);
}

RunningStats RunningStats::unpack(io::ByteReader& r) {
  RunningStats s;
  s.count = r.get<int64_t>();
  s.sum = r.get<double>();
  s.mean = r.get<double>();
  s.m2 = r.get<double>();
  s.min = r.get<double>();
  s.max = r.get<double>();
  s.min_rank = r.get<int32_t>();
  s.max_rank = r.get<int32_t>();
  return s;
}

}  // namespace cs::stats
