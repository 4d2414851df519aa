#pragma once
// Count/total/min/max of durations, mergeable; shared by the kernel and communication tables.

#include <algorithm>
#include <cstdint>
#include <limits>

namespace cs::compare {

struct DurationStats {
  int64_t count = 0;
  double total = 0;
  double min = std::numeric_limits<double>::infinity();
  double max = 0;

  void add(double v) {
    ++count;
    total += v;
    min = std::min(min, v);
    max = std::max(max, v);
  }
  double avg() const { return count ? total / static_cast<double>(count) : 0.0; }
  double min_or_zero() const { return count ? min : 0.0; }
};

}  // namespace cs::compare
