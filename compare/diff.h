#pragma once
// The diff and ratio of two measurements, as compare_tools defines them.

#include <limits>

namespace cs::compare {

// comparison / base; 1 when both are 0, +inf when only base is 0.
// Example: diff_ratio(2, 3) == 1.5; diff_ratio(0, 0) == 1; diff_ratio(0, 5) == inf.
inline double diff_ratio(double base, double comparison) {
  if (base == 0) return comparison == 0 ? 1.0 : std::numeric_limits<double>::infinity();
  return comparison / base;
}

}  // namespace cs::compare
