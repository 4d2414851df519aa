#pragma once
// TopN operators from a merged OperatorTable: one row per key with the per-kernel statistics,
// quantiles from the sketch, and the spread of per-rank totals (cross-rank CV, min/max rank).
//
//   OperatorTable merged;  for (auto& r : ranks) merged.merge(r.operators);   // rank order
//   auto rows = select_topn(merged, 15, OrderBy::kTotal);

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stats/operator_table.h"

namespace cs::stats {

// --order-by: total (sum of durations), mean, max (longest kernel), cv (cross-rank CV).
enum class OrderBy { kTotal, kMean, kMax, kCv };
// "total" | "mean" | "max" | "cv" -> OrderBy; nullopt for anything else.
std::optional<OrderBy> parse_order_by(std::string_view s);

struct TopNRow {
  std::string key;
  int64_t count = 0;
  double total_us = 0;
  double mean_us = 0;
  double std_us = 0;  // sample standard deviation of kernel durations (n-1), 0 for one kernel
  double min_us = 0;
  double max_us = 0;
  // Quantiles of kernel durations from the QuantileSketch: within +-alpha (1% by default,
  // relative) of the true lower sample quantile x[floor(q*(n-1))].
  double p50_us = 0;
  double p90_us = 0;
  double p99_us = 0;
  int64_t ranks = 0;         // ranks that ran this key
  int min_rank = -1;         // rank with the smallest per-rank total (lowest rank on ties)
  int max_rank = -1;         // rank with the largest per-rank total (lowest rank on ties)
  double cross_rank_cv = 0;  // population std / mean of per-rank totals (0 for one rank)
};

// Coefficient of variation of per-rank totals: sqrt(mean((t - mean)^2)) / mean over the ranks in
// the map; 0 when fewer than 2 ranks or the mean is 0. {0: 10, 1: 10, 2: 40} -> 0.7071.
double cross_rank_cv(const std::map<int, double>& rank_totals);

// One row per key (not yet ordered).
TopNRow make_topn_row(const std::string& key, const OperatorKeyStats& s);

// True for communication kernels (key starts with hcom/hccl, or contains nccl, any case): their
// durations include waiting for peers, so their spread across ranks says who waited, not which
// kernel is slow.
bool is_communication_key(std::string_view key);

// The n keys with the largest `order` value, largest first; ties broken by key so the output
// is deterministic. n = 0 means all keys. With OrderBy::kCv, communication keys come after every
// compute key (the CV ranking is about compute imbalance; slow_ranks covers the waiting).
std::vector<TopNRow> select_topn(const OperatorTable& merged, size_t n, OrderBy order);

}  // namespace cs::stats
