#pragma once
// Mergeable summary statistics (count, sum, mean, Welford M2, min/max with the rank holding them).
// merge() uses Chan et al.'s parallel update, so a tree reduction over processes gives the same
// answer as one pass over all values (up to floating-point rounding of the merge order; callers
// that need byte-identical output merge in a fixed order, e.g. by rank).

#include <cstdint>
#include <limits>

#include "io/byte_buffer.h"

namespace cs::stats {

struct RunningStats {
  int64_t count = 0;
  double sum = 0;
  double mean = 0;
  double m2 = 0;  // sum of squared deviations from the mean
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  int min_rank = -1;
  int max_rank = -1;

  // Adds one observation x that came from `rank` (-1 when not relevant).
  void add(double x, int rank = -1);
  // Merges another state (Chan's parallel algorithm).
  void merge(const RunningStats& o);
  // Population variance (M2 / n); 0 for n < 1.
  double variance() const { return count > 0 ? m2 / static_cast<double>(count) : 0.0; }
  // Sample variance (M2 / (n-1)); 0 for n < 2.
  double sample_variance() const { return count > 1 ? m2 / static_cast<double>(count - 1) : 0.0; }
  double stddev() const;

  void pack(io::ByteWriter& w) const;
  static RunningStats unpack(io::ByteReader& r);
};

}  // namespace cs::stats
