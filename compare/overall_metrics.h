#pragma once
// Overall metrics of one profile (formats.md §8): Computing time split into categories,
// Uncovered Communication, Free, E2E — and the base-vs-comparison table overall_metrics.csv.
//
//   OverallMetrics b = overall_metrics(base), c = overall_metrics(comparison);
//   io::Table t = overall_metrics_table(b, c);

#include <array>
#include <cstdint>
#include <string>

#include "compare/kernel_category.h"
#include "compare/profile.h"
#include "io/table.h"

namespace cs::compare {

struct OverallMetrics {
  // Computing time per category: time shared by overlapping kernels is split evenly among them,
  // so the rows add up to computing_us.
  std::array<double, kCategoryCount> category_us{};
  std::array<int64_t, kCategoryCount> category_count{};
  double computing_us = 0;  // NPU: Overlap Analysis "Computing"; GPU: union of compute kernels
  int64_t computing_count = 0;
  double uncovered_comm_us = 0;  // communication not overlapped by computing
  int64_t comm_count = 0;
  double free_us = 0;  // E2E minus computing and uncovered communication
  double e2e_us = 0;   // first device activity to last (NPU: Overlap Analysis span)
  bool from_overlap_analysis = false;
};

// Metrics of one profile. GPU (or NPU without Overlap Analysis): from kernel intervals — compute
// kernels vs communication kernels; uncovered = |comm \ compute|; free = E2E − |compute ∪ comm|.
OverallMetrics overall_metrics(const Profile& p);

// Each category's share of the union of `kernels` ([start, end) ns, category): every stretch of
// time split evenly among the kernels running in it. Example: A [0, 10000) and B [5000, 15000) ns
// of two categories -> A 7.5 µs, B 7.5 µs (the union, 15 µs).
std::array<double, kCategoryCount> exclusive_category_us(
    const std::vector<std::pair<std::pair<int64_t, int64_t>, KernelCategory>>& kernels);

// Length of the union of [start, end) intervals (ns), and of `a` minus `b`.
// Example: union_ns({{0,10},{5,20}}) == 20.
int64_t union_ns(std::vector<std::pair<int64_t, int64_t>> iv);
int64_t difference_ns(std::vector<std::pair<int64_t, int64_t>> a,
                      std::vector<std::pair<int64_t, int64_t>> b);

// overall_metrics.csv: metric,base_ms,base_ratio,base_count,comparison_ms,comparison_ratio,
// comparison_count,diff_ms,diff_ratio. Ratios are shares of each side's E2E time.
io::Table overall_metrics_table(const OverallMetrics& base, const OverallMetrics& comparison);

// The same table as aligned text for the terminal.
std::string format_overall_table(const io::Table& t);

}  // namespace cs::compare
