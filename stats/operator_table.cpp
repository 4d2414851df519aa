#include "stats/operator_table.h"

#include <cmath>
#include <stdexcept>

namespace cs::stats {

namespace {

OperatorKeyStats& slot(std::map<std::string, OperatorKeyStats, std::less<>>& keys,
                       std::string_view key) {
  auto it = keys.find(key);
  if (it == keys.end()) it = keys.try_emplace(std::string(key)).first;
  return it->second;
}

}  // namespace

void OperatorTable::add(std::string_view key, double duration_us, int rank) {
  if (!std::isfinite(duration_us)) return;
  auto& s = slot(keys_, key);
  s.durations.add(duration_us, rank);
  s.sketch.add(duration_us);
  s.rank_totals[rank] += duration_us;
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
  s.sketch.add(g.mean, count);
  s.rank_totals[rank] += total_us;
}

void OperatorTable::merge(const OperatorTable& other) {
  for (const auto& [key, o] : other.keys_) {
    auto& s = slot(keys_, key);
    s.durations.merge(o.durations);
    s.sketch.merge(o.sketch);
    for (const auto& [rank, total] : o.rank_totals) s.rank_totals[rank] += total;
  }
}

void OperatorTable::pack(io::ByteWriter& w) const {
  w.put<uint32_t>(static_cast<uint32_t>(keys_.size()));
  for (const auto& [key, s] : keys_) {
    w.str(key);
    s.durations.pack(w);
    s.sketch.pack(w);
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
    s.sketch = QuantileSketch::unpack(r);
    const auto nr = r.get<uint32_t>();
    for (uint32_t j = 0; j < nr; ++j) {
      const auto rank = r.get<int32_t>();
      s.rank_totals.emplace_hint(s.rank_totals.end(), rank, r.get<double>());
    }
    t.keys_.emplace_hint(t.keys_.end(), std::move(key), std::move(s));
  }
  return t;
}

}  // namespace cs::stats
