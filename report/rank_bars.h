#pragma once
// Per-rank values grouped for drawing: one bar per rank for small clusters, and for large ones
// (thousands of ranks) one bar per bucket of consecutive ranks holding the mean of each part and
// the min / median / max of the total, so a chart stays readable and the file small.
//
//   std::vector<RankPoint> pts = {{0, {5.0, 1.0}, false}, {1, {6.0, 0.5}, true}};
//   auto bars = bucket_ranks(pts, 256);   // 2 bars, one per rank

#include <cstddef>
#include <string>
#include <vector>

namespace cs::report {

struct RankPoint {
  long long rank = 0;
  std::vector<double> parts;  // stacked components (e.g. computing, comm, free)
  bool flagged = false;       // e.g. judged slow
};

struct RankBar {
  long long first_rank = 0;  // ranks first_rank..last_rank (the same for a single-rank bar)
  long long last_rank = 0;
  size_t count = 0;           // ranks in the bar
  std::vector<double> parts;  // mean of each part over the ranks of the bar
  double total_min = 0;       // min / median / max of the per-rank sum of parts
  double total_median = 0;
  double total_max = 0;
  size_t flagged = 0;      // flagged ranks in the bar
  long long max_rank = 0;  // rank holding total_max

  // "17" or "0–63".
  std::string label() const;
};

// Sorts `points` by rank and returns one bar per rank when there are at most `max_bars` points,
// else buckets of ceil(n / max_bars) consecutive ranks. Empty input gives no bars.
std::vector<RankBar> bucket_ranks(std::vector<RankPoint> points, size_t max_bars);

}  // namespace cs::report
