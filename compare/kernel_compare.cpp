#include "compare/kernel_compare.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "compare/diff.h"
#include "compare/kernel_stats.h"

namespace cs::compare {

std::string kernel_key(const Profile& p, const DeviceKernel& k, bool use_input_shape) {
  std::string key(p.str(k.name));
  if (use_input_shape && k.op >= 0) {
    const auto shapes = p.str(p.ops[static_cast<size_t>(k.op)].input_dims);
    if (!shapes.empty()) key.append(" | ").append(shapes);
  }
  return key;
}

io::Table kernel_compare_table(const Profile& base, const Profile& comparison,
                               bool use_input_shape) {
  std::map<std::string, std::pair<DurationStats, DurationStats>> by_key;
  for (const auto& k : base.kernels)
    if (!k.communication) by_key[kernel_key(base, k, use_input_shape)].first.add(k.dur_us);
  for (const auto& k : comparison.kernels)
    if (!k.communication) by_key[kernel_key(comparison, k, use_input_shape)].second.add(k.dur_us);

  std::vector<const decltype(by_key)::value_type*> rows;
  for (const auto& kv : by_key) rows.push_back(&kv);
  std::stable_sort(rows.begin(), rows.end(), [](auto* a, auto* b) {
    return std::fabs(a->second.second.total - a->second.first.total) >
           std::fabs(b->second.second.total - b->second.first.total);
  });

  io::Table t("kernel_compare");
  auto& key = t.add_string("key");
  struct Side {
    io::Column *total, *count, *avg, *max, *min;
  };
  auto side = [&](const std::string& p) {
    Side s;
    s.total = &t.add_double(p + "_total_us", "us");
    s.count = &t.add_int(p + "_count");
    s.avg = &t.add_double(p + "_avg_us", "us");
    s.max = &t.add_double(p + "_max_us", "us");
    s.min = &t.add_double(p + "_min_us", "us");
    return s;
  };
  Side b = side("base"), c = side("comparison");
  auto& diff = t.add_double("diff_us", "us");
  auto& ratio = t.add_double("diff_ratio", "ratio");
  auto put = [](Side& s, const DurationStats& d) {
    s.total->doubles.push_back(d.total);
    s.count->ints.push_back(d.count);
    s.avg->doubles.push_back(d.avg());
    s.max->doubles.push_back(d.max);
    s.min->doubles.push_back(d.min_or_zero());
  };
  for (const auto* r : rows) {
    key.strings.push_back(r->first);
    put(b, r->second.first);
    put(c, r->second.second);
    diff.doubles.push_back(r->second.second.total - r->second.first.total);
    ratio.doubles.push_back(diff_ratio(r->second.first.total, r->second.second.total));
  }
  return t;
}

}  // namespace cs::compare
