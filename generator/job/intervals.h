#pragma once
// Interval arithmetic of the generated timelines (trace_view.json, CANN's msprof_*.json): the
// Overlap Analysis spans are computed from merged kernel and communication intervals.

#include <algorithm>
#include <utility>
#include <vector>

namespace cs::generator {

using Interval = std::pair<double, double>;

// Sorts and merges overlapping intervals: {{3,4},{1,2},{2,3}} -> {{1,4}}.
inline std::vector<Interval> merged(std::vector<Interval> v) {
  std::sort(v.begin(), v.end());
  std::vector<Interval> out;
  for (const auto& i : v) {
    if (!out.empty() && i.first <= out.back().second)
      out.back().second = std::max(out.back().second, i.second);
    else
      out.push_back(i);
  }
  return out;
}

// Parts of merged list `a` not covered by merged list `b`.
inline std::vector<Interval> minus(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  size_t j = 0;
  for (auto [lo, hi] : a) {
    while (j < b.size() && b[j].second <= lo) ++j;
    size_t k = j;
    while (k < b.size() && b[k].first < hi) {
      if (b[k].first > lo) out.push_back({lo, b[k].first});
      lo = std::max(lo, b[k].second);
      ++k;
    }
    if (lo < hi) out.push_back({lo, hi});
  }
  return out;
}

}  // namespace cs::generator
