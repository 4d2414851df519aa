#include "memory/memory_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace cs::memory {

io::Table memory_rank_diff_table(const std::vector<RankMemoryRef>& base,
                                 const std::vector<RankMemoryRef>& comparison) {
  std::map<int, std::pair<const RankMemory*, const RankMemory*>> by;
  for (const auto& r : base) by[r.rank].first = r.memory;
  for (const auto& r : comparison) by[r.rank].second = r.memory;
  io::Table t("memory_rank_diff");
  auto& rank = t.add_int("rank");
  auto& a = t.add_double("base_peak_mb", "MB");
  auto& b = t.add_double("comparison_peak_mb", "MB");
  auto& d = t.add_double("diff_mb", "MB");
  auto& pct = t.add_double("diff_pct", "%");
  auto& ra = t.add_double("base_reserved_mb", "MB");
  auto& rb = t.add_double("comparison_reserved_mb", "MB");
  for (const auto& [r, m] : by) {
    const double va = m.first ? to_mb(m.first->peak_allocated) : NAN;
    const double vb = m.second ? to_mb(m.second->peak_allocated) : NAN;
    rank.ints.push_back(r);
    a.doubles.push_back(va);
    b.doubles.push_back(vb);
    d.doubles.push_back(vb - va);
    pct.doubles.push_back(va > 0 ? 100.0 * (vb - va) / va : NAN);
    ra.doubles.push_back(m.first ? to_mb(m.first->peak_reserved) : NAN);
    rb.doubles.push_back(m.second ? to_mb(m.second->peak_reserved) : NAN);
  }
  return t;
}

io::Table memory_operator_diff_table(const std::vector<RankMemoryRef>& base,
                                     const std::vector<RankMemoryRef>& comparison) {
  struct Acc {
    int64_t bytes[2] = {0, 0};
    int64_t calls[2] = {0, 0};
  };
  std::map<std::string, Acc> ops;
  for (int side = 0; side < 2; ++side)
    for (const auto& r : side == 0 ? base : comparison)
      for (const auto& o : r.memory->operators) {
        ops[o.op].bytes[side] += o.bytes;
        ops[o.op].calls[side] += o.calls;
      }
  std::vector<std::pair<std::string, Acc>> rows(ops.begin(), ops.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) {
    return std::llabs(x.second.bytes[1] - x.second.bytes[0]) >
           std::llabs(y.second.bytes[1] - y.second.bytes[0]);
  });
  io::Table t("memory_operator_diff");
  auto& name = t.add_string("operator");
  auto& a = t.add_double("base_mb", "MB");
  auto& b = t.add_double("comparison_mb", "MB");
  auto& d = t.add_double("diff_mb", "MB");
  auto& ca = t.add_int("base_calls");
  auto& cb = t.add_int("comparison_calls");
  for (const auto& [op, x] : rows) {
    name.strings.push_back(op);
    a.doubles.push_back(to_mb(x.bytes[0]));
    b.doubles.push_back(to_mb(x.bytes[1]));
    d.doubles.push_back(to_mb(x.bytes[1] - x.bytes[0]));
    ca.ints.push_back(x.calls[0]);
    cb.ints.push_back(x.calls[1]);
  }
  return t;
}

std::string memory_diff_line(const io::Table& t, bool pair) {
  const io::Column* rank = t.find("rank");
  const io::Column* d = t.find("diff_mb");
  const io::Column* b = t.find("comparison_peak_mb");
  if (!rank || !d || !b || t.rows() == 0) return {};
  size_t best = t.rows();
  for (size_t i = 0; i < t.rows(); ++i)
    if (std::isfinite(d->doubles[i]) &&
        (best == t.rows() || std::fabs(d->doubles[i]) > std::fabs(d->doubles[best])))
      best = i;
  if (best == t.rows()) return {};
  char buf[200];
  if (pair) {
    std::snprintf(buf, sizeof buf,
                  "Memory: peak %.2f GB (base) vs %.2f GB (comparison), %+.2f GB; see "
                  "memory_rank_diff.csv and memory_operator_diff.csv\n",
                  t.find("base_peak_mb")->doubles[best] / 1024.0, b->doubles[best] / 1024.0,
                  d->doubles[best] / 1024.0);
    return buf;
  }
  std::snprintf(buf, sizeof buf,
                "Memory: the peak changed most on rank %lld: %+.2f GB (to %.2f GB); see "
                "memory_rank_diff.csv and memory_operator_diff.csv\n",
                static_cast<long long>(rank->ints[best]), d->doubles[best] / 1024.0,
                b->doubles[best] / 1024.0);
  return buf;
}

}  // namespace cs::memory
