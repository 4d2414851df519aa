#include "stats/operator_table.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace cs::stats {

namespace {

OperatorKeyStats& slot(std::map<std::string, OperatorKeyStats, std::less<>>& keys,
                       std::string_view key) {
  auto it = keys.find(key);
  if (it == keys.end()) it = keys.try_emplace(std::string(key)).first;
  return it->second;
}

}  // namespace

RankTotals::RankTotals(std::initializer_list<value_type> totals) {
  for (const auto& [rank, v] : totals) add(rank, v);
}

void RankTotals::add(int rank, double v) {
  if (totals_.empty() || totals_.back().first < rank) {
    totals_.emplace_back(rank, 0.0);
    totals_.back().second += v;
    return;
  }
  auto it = std::lower_bound(totals_.begin(), totals_.end(), rank,
                             [](const value_type& e, int r) { return e.first < r; });
  if (it == totals_.end() || it->first != rank) it = totals_.emplace(it, rank, 0.0);
  it->second += v;
}

RankTotals::const_iterator RankTotals::find(int rank) const {
  auto it = std::lower_bound(totals_.begin(), totals_.end(), rank,
                             [](const value_type& e, int r) { return e.first < r; });
  return it != totals_.end() && it->first == rank ? it : totals_.end();
}

double RankTotals::at(int rank) const {
  const auto it = find(rank);
  if (it == end()) throw std::out_of_range("no total for rank " + std::to_string(rank));
  return it->second;
}

void RankTotals::erase(int rank) {
  const auto it = find(rank);
  if (it != end()) totals_.erase(it);
}

void OperatorTable::add(std::string_view key, double duration_us, int rank) {
  if (!std::isfinite(duration_us)) return;
  auto& s = slot(keys_, key);
  s.durations.add(duration_us, rank);
  s.quantiles.add(duration_us);
  s.rank_totals.add(rank, duration_us);
}

void OperatorTable::add_aggregate(std::string_view key, int64_t count, double total_us,
                                  double min_us, double max_us, int rank) {
  if (count <= 0 || !std::isfinite(total_us)) return;
  auto& s = slot(keys_, key);
  // Individual durations are unknown: the group enters with its exact count, sum, mean, min and
  // max, and a zero spread (M2 = 0), so std_us reflects only the spread between groups/ranks.
  RunningStats g;
  g.count = count;
  g.sum = total_us;
  g.mean = total_us / static_cast<double>(count);
  g.m2 = 0.0;
  g.min = std::isfinite(min_us) ? min_us : g.mean;
  g.max = std::isfinite(max_us) ? max_us : g.mean;
  g.min_rank = rank;
  g.max_rank = rank;
  s.durations.merge(g);
  s.quantiles.add_approximate(g.mean, count);
  s.rank_totals.add(rank, total_us);
}

void OperatorTable::merge(const OperatorTable& other) {
  merge(other, nullptr);
}

void OperatorTable::merge_counting(const OperatorTable& other, const Keeper& keep) {
  merge(other, &keep);
}

void OperatorTable::merge(const OperatorTable& other, const Keeper* keep) {
  for (const auto& [key, o] : other.keys_) {
    auto& s = slot(keys_, key);
    s.durations.merge(o.durations);
    if (!keep) {
      s.quantiles.merge(o.quantiles);
      for (const auto& [rank, total] : o.rank_totals) s.rank_totals.add(rank, total);
      continue;
    }
    if (s.quantiles.merge_counting(o.quantiles)) keep->samples(key, o.quantiles.samples());
    if (!o.rank_totals.empty()) keep->totals(key, o.rank_totals);
  }
  size_t held = 0;
  for (const auto& [key, s] : keys_) held += s.quantiles.exact_samples();
  if (held <= kExactBudget) return;
  // Largest first (ties by key), so the outcome depends only on the merged contents.
  std::vector<std::pair<size_t, OperatorKeyStats*>> by_size;
  for (auto& [key, s] : keys_)
    if (s.quantiles.exact_samples() > 0) by_size.emplace_back(s.quantiles.exact_samples(), &s);
  std::stable_sort(by_size.begin(), by_size.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (auto& [n, s] : by_size) {
    if (held <= kExactBudget) break;
    s->quantiles.drop_exact();
    held -= n;
  }
}

void OperatorTable::pack(io::ByteWriter& w) const {
  w.put<uint32_t>(static_cast<uint32_t>(keys_.size()));
  for (const auto& [key, s] : keys_) {
    w.str(key);
    s.durations.pack(w);
    s.quantiles.pack(w);
    w.put<uint32_t>(static_cast<uint32_t>(s.rank_totals.size()));
    for (const auto& [rank, total] : s.rank_totals) {
      w.put<int32_t>(rank);
      w.put(total);
    }
  }
}

OperatorTable OperatorTable::unpack(io::ByteReader& r) {
  OperatorTable t;
  const auto n = r.get<uint32_t>();
  for (uint32_t i = 0; i < n; ++i) {
    std::string key = r.str();
    OperatorKeyStats s;
    s.durations = RunningStats::unpack(r);
    s.quantiles = Quantiles::unpack(r);
    const auto nr = r.get<uint32_t>();
    for (uint32_t j = 0; j < nr; ++j) {
      const auto rank = r.get<int32_t>();
      s.rank_totals.add(rank, r.get<double>());  // packed in rank order: an append
    }
    t.keys_.emplace_hint(t.keys_.end(), std::move(key), std::move(s));
  }
  return t;
}

void OperatorTable::rename_rank(int from, int to) {
  if (from == to) return;
  for (auto& [key, st] : keys_) {
    auto it = st.rank_totals.find(from);
    if (it == st.rank_totals.end()) continue;
    const double total = it->second;
    st.rank_totals.add(to, total);
    st.rank_totals.erase(from);
  }
}

}  // namespace cs::stats
