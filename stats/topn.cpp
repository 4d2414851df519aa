#include "stats/topn.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "stats/outliers.h"

namespace cs::stats {

std::optional<OrderBy> parse_order_by(std::string_view s) {
  return runtime::enum_from_name(kOrderByNames, s);
}

double cross_rank_cv(const RankTotals& rank_totals) {
  if (rank_totals.size() < 2) return 0.0;
  double sum = 0;
  for (const auto& [rank, t] : rank_totals) sum += t;
  const double n = static_cast<double>(rank_totals.size());
  const double mean = sum / n;
  if (mean == 0) return 0.0;
  double ss = 0;
  for (const auto& [rank, t] : rank_totals) ss += (t - mean) * (t - mean);
  return std::sqrt(ss / n) / std::abs(mean);
}

RankTotals stage_relative_totals(const RankTotals& rank_totals, const RankStages& stages) {
  if (stages.empty() || rank_totals.size() < 2) return rank_totals;
  std::map<int, std::vector<double>> by_stage;
  auto stage_of = [&](int rank) {
    const auto it = stages.find(rank);
    return it == stages.end() ? std::numeric_limits<int>::min() : it->second;
  };
  for (const auto& [rank, t] : rank_totals) by_stage[stage_of(rank)].push_back(t);
  std::map<int, double> med;
  for (auto& [stage, v] : by_stage) {
    const double m = median(std::move(v));
    if (!(m > 0)) return rank_totals;
    med[stage] = m;
  }
  RankTotals out;
  for (const auto& [rank, t] : rank_totals) out.add(rank, t / med[stage_of(rank)]);
  return out;
}

double cross_rank_cv(const RankTotals& rank_totals, const RankStages& stages) {
  return cross_rank_cv(stage_relative_totals(rank_totals, stages));
}

TopNRow make_topn_row(const std::string& key, const OperatorKeyStats& s, const RankStages& stages) {
  TopNRow r;
  r.key = key;
  r.count = s.durations.count;
  r.total_us = s.durations.sum;
  r.mean_us = s.durations.count > 0 ? s.durations.mean : 0.0;
  r.std_us = std::sqrt(s.durations.sample_variance());
  r.min_us = s.durations.count > 0 ? s.durations.min : 0.0;
  r.max_us = s.durations.count > 0 ? s.durations.max : 0.0;
  r.p50_us = s.quantiles.quantile(0.50);
  r.p90_us = s.quantiles.quantile(0.90);
  r.p99_us = s.quantiles.quantile(0.99);
  r.ranks = static_cast<int64_t>(s.rank_totals.size());
  const auto totals = stage_relative_totals(s.rank_totals, stages);
  double lo = 0, hi = 0;
  for (const auto& [rank, t] : totals) {  // ascending rank: strict compare keeps lowest
    if (r.min_rank < 0 || t < lo) lo = t, r.min_rank = rank;
    if (r.max_rank < 0 || t > hi) hi = t, r.max_rank = rank;
  }
  r.cross_rank_cv = cross_rank_cv(totals);
  return r;
}

bool is_communication_key(std::string_view key) {
  std::string k(key.substr(0, 256));
  for (auto& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return k.rfind("hcom", 0) == 0 || k.rfind("hccl", 0) == 0 || k.find("nccl") != std::string::npos;
}

namespace {

double order_value(const TopNRow& r, OrderBy order) {
  switch (order) {
    case OrderBy::kTotal:
      return r.total_us;
    case OrderBy::kMean:
      return r.mean_us;
    case OrderBy::kMax:
      return r.max_us;
    case OrderBy::kCv:
      return r.cross_rank_cv;
  }
  return r.total_us;
}

}  // namespace

std::vector<TopNRow> select_topn(const OperatorTable& merged, size_t n, OrderBy order,
                                 const RankStages& stages) {
  std::vector<TopNRow> rows;
  rows.reserve(merged.keys().size());
  for (const auto& [key, s] : merged.keys()) rows.push_back(make_topn_row(key, s, stages));
  return select_rows(std::move(rows), n, order);
}

std::vector<TopNRow> select_rows(std::vector<TopNRow> rows, size_t n, OrderBy order) {
  if (order == OrderBy::kCv)
    for (auto& r : rows) r.key.insert(0, is_communication_key(r.key) ? "1" : "0");
  auto better = [order](const TopNRow& a, const TopNRow& b) {
    if (order == OrderBy::kCv && a.key[0] != b.key[0]) return a.key[0] < b.key[0];
    const double va = order_value(a, order), vb = order_value(b, order);
    if (va != vb) return va > vb;
    if (a.total_us != b.total_us) return a.total_us > b.total_us;
    return a.key < b.key;
  };
  if (n == 0 || n >= rows.size()) {
    std::sort(rows.begin(), rows.end(), better);
  } else {
    std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(n), rows.end(),
                      better);
    rows.resize(n);
  }
  if (order == OrderBy::kCv)
    for (auto& r : rows) r.key.erase(0, 1);
  return rows;
}

}  // namespace cs::stats
