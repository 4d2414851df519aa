#include "report/rank_bars.h"

#include <algorithm>

namespace cs::report {

std::string RankBar::label() const {
  if (first_rank == last_rank) return std::to_string(first_rank);
  return std::to_string(first_rank) + "\u2013" + std::to_string(last_rank);
}

namespace {

double total_of(const RankPoint& p) {
  double t = 0;
  for (double v : p.parts)
    if (v == v) t += v;  // skip NaN
  return t;
}

}  // namespace

std::vector<RankBar> bucket_ranks(std::vector<RankPoint> points, size_t max_bars) {
  std::vector<RankBar> bars;
  if (points.empty()) return bars;
  if (max_bars == 0) max_bars = 1;
  std::sort(points.begin(), points.end(),
            [](const RankPoint& a, const RankPoint& b) { return a.rank < b.rank; });
  const size_t n = points.size();
  const size_t per = (n + max_bars - 1) / max_bars;
  size_t parts = 0;
  for (const auto& p : points) parts = std::max(parts, p.parts.size());
  std::vector<double> totals;
  for (size_t begin = 0; begin < n; begin += per) {
    const size_t end = std::min(n, begin + per);
    RankBar bar;
    bar.first_rank = points[begin].rank;
    bar.last_rank = points[end - 1].rank;
    bar.count = end - begin;
    bar.parts.assign(parts, 0.0);
    std::vector<size_t> seen(parts, 0);
    totals.clear();
    double best = -1;
    for (size_t i = begin; i < end; ++i) {
      const auto& p = points[i];
      for (size_t k = 0; k < p.parts.size(); ++k)
        if (p.parts[k] == p.parts[k]) {
          bar.parts[k] += p.parts[k];
          ++seen[k];
        }
      const double t = total_of(p);
      totals.push_back(t);
      if (t > best) {
        best = t;
        bar.max_rank = p.rank;
      }
      if (p.flagged) ++bar.flagged;
    }
    for (size_t k = 0; k < parts; ++k)
      if (seen[k]) bar.parts[k] /= static_cast<double>(seen[k]);
    std::sort(totals.begin(), totals.end());
    bar.total_min = totals.front();
    bar.total_max = totals.back();
    const size_t m = totals.size();
    bar.total_median = m % 2 ? totals[m / 2] : 0.5 * (totals[m / 2 - 1] + totals[m / 2]);
    bars.push_back(std::move(bar));
  }
  return bars;
}

}  // namespace cs::report
