// free_from_busy: Free intervals as the gaps of the device's busy time per step.

#include "host/device_free.h"

#include <algorithm>

namespace cs::host {

namespace {

void gaps(std::vector<std::pair<int64_t, int64_t>>& busy, int64_t lo, int64_t hi,
          std::vector<FreeSpan>& out) {
  std::vector<std::pair<int64_t, int64_t>> u;
  for (const auto& [s, e] : busy) {
    const int64_t a = std::max(s, lo), b = std::min(e, hi);
    if (b <= a) continue;
    if (!u.empty() && a <= u.back().second)
      u.back().second = std::max(u.back().second, b);
    else
      u.push_back({a, b});
  }
  for (size_t i = 1; i < u.size(); ++i)
    out.push_back(
        {u[i - 1].second, u[i].first, static_cast<double>(u[i].first - u[i - 1].second) / 1000.0});
}

}  // namespace

std::vector<FreeSpan> free_from_busy(std::vector<std::pair<int64_t, int64_t>> busy,
                                     const std::vector<StepRange>& steps) {
  std::sort(busy.begin(), busy.end());
  std::vector<FreeSpan> out;
  if (steps.empty()) {
    gaps(busy, INT64_MIN, INT64_MAX, out);
    return out;
  }
  for (const StepRange& s : steps) gaps(busy, s.start_ns, s.end_ns, out);
  return out;
}

}  // namespace cs::host
