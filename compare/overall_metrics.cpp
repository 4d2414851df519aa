#include "compare/overall_metrics.h"

#include <algorithm>
#include <cstdio>

#include "compare/diff.h"

namespace cs::compare {

namespace {

using Intervals = std::vector<std::pair<int64_t, int64_t>>;

Intervals merged(Intervals iv) {
  std::sort(iv.begin(), iv.end());
  Intervals out;
  for (const auto& [s, e] : iv) {
    if (e <= s) continue;
    if (!out.empty() && s <= out.back().second)
      out.back().second = std::max(out.back().second, e);
    else
      out.emplace_back(s, e);
  }
  return out;
}

}  // namespace

int64_t union_ns(Intervals iv) {
  int64_t total = 0;
  for (const auto& [s, e] : merged(std::move(iv))) total += e - s;
  return total;
}

int64_t difference_ns(Intervals a, Intervals b) {
  const Intervals ma = merged(std::move(a)), mb = merged(std::move(b));
  int64_t total = 0;
  size_t j = 0;
  for (const auto& [s, e] : ma) {
    int64_t covered = 0;
    while (j < mb.size() && mb[j].second <= s) ++j;
    for (size_t k = j; k < mb.size() && mb[k].first < e; ++k)
      covered += std::min(e, mb[k].second) - std::max(s, mb[k].first);
    total += (e - s) - covered;
  }
  return total;
}

std::array<double, kCategoryCount> exclusive_category_us(
    const std::vector<std::pair<std::pair<int64_t, int64_t>, KernelCategory>>& kernels) {
  // Sweep over start/end points; each stretch of time is split evenly among the kernels running
  // in it, so the shares add up to the union of the kernels.
  std::vector<std::pair<int64_t, std::pair<int, size_t>>> ev;
  ev.reserve(kernels.size() * 2);
  for (const auto& [iv, cat] : kernels) {
    if (iv.second <= iv.first) continue;
    ev.push_back({iv.first, {+1, static_cast<size_t>(cat)}});
    ev.push_back({iv.second, {-1, static_cast<size_t>(cat)}});
  }
  std::sort(ev.begin(), ev.end());
  std::array<double, kCategoryCount> out{};
  std::array<int64_t, kCategoryCount> active{};
  int64_t running = 0;
  int64_t prev = ev.empty() ? 0 : ev.front().first;
  for (const auto& [t, what] : ev) {
    if (running > 0 && t > prev) {
      const double len = static_cast<double>(t - prev) / 1000.0;
      for (size_t c = 0; c < kCategoryCount; ++c)
        if (active[c] > 0)
          out[c] += len * static_cast<double>(active[c]) / static_cast<double>(running);
    }
    prev = t;
    active[what.second] += what.first;
    running += what.first;
  }
  return out;
}

OverallMetrics overall_metrics(const Profile& p) {
  OverallMetrics m;
  Intervals compute, comm;
  std::vector<std::pair<std::pair<int64_t, int64_t>, KernelCategory>> compute_kernels;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto& k : p.kernels) {
    lo = std::min(lo, k.start_ns);
    hi = std::max(hi, k.end_ns);
    if (k.communication) {
      comm.emplace_back(k.start_ns, k.end_ns);
      ++m.comm_count;
      continue;
    }
    compute.emplace_back(k.start_ns, k.end_ns);
    compute_kernels.push_back({{k.start_ns, k.end_ns}, k.category});
    ++m.category_count[static_cast<size_t>(k.category)];
    ++m.computing_count;
  }
  m.category_us = exclusive_category_us(compute_kernels);
  if (p.has_overlap) {
    m.from_overlap_analysis = true;
    m.computing_us = p.overlap_computing_us;
    m.uncovered_comm_us = p.overlap_comm_not_overlapped_us;
    m.free_us = p.overlap_free_us;
    m.e2e_us = static_cast<double>(p.overlap_end_ns - p.overlap_start_ns) / 1000.0;
    // The producer's Computing is the union of the same compute tasks; shares of it by category.
    double sum = 0;
    for (double v : m.category_us) sum += v;
    if (sum > 0)
      for (double& v : m.category_us) v *= m.computing_us / sum;
    return m;
  }
  if (p.kernels.empty()) return m;
  const int64_t busy = union_ns([&] {
    Intervals all = compute;
    all.insert(all.end(), comm.begin(), comm.end());
    return all;
  }());
  m.computing_us = static_cast<double>(union_ns(compute)) / 1000.0;
  m.uncovered_comm_us = static_cast<double>(difference_ns(comm, compute)) / 1000.0;
  m.e2e_us = static_cast<double>(hi - lo) / 1000.0;
  m.free_us = static_cast<double>(hi - lo - busy) / 1000.0;
  return m;
}

io::Table overall_metrics_table(const OverallMetrics& b, const OverallMetrics& c) {
  io::Table t("overall_metrics");
  auto& metric = t.add_string("metric");
  auto& base_ms = t.add_double("base_ms", "ms");
  auto& base_ratio = t.add_double("base_ratio", "ratio");
  auto& base_count = t.add_int("base_count");
  auto& comp_ms = t.add_double("comparison_ms", "ms");
  auto& comp_ratio = t.add_double("comparison_ratio", "ratio");
  auto& comp_count = t.add_int("comparison_count");
  auto& diff_ms = t.add_double("diff_ms", "ms");
  auto& ratio = t.add_double("diff_ratio", "ratio");
  auto row = [&](std::string name, double bu, int64_t bc, double cu, int64_t cc) {
    metric.strings.push_back(std::move(name));
    base_ms.doubles.push_back(bu / 1000.0);
    base_ratio.doubles.push_back(b.e2e_us > 0 ? bu / b.e2e_us : 0.0);
    base_count.ints.push_back(bc);
    comp_ms.doubles.push_back(cu / 1000.0);
    comp_ratio.doubles.push_back(c.e2e_us > 0 ? cu / c.e2e_us : 0.0);
    comp_count.ints.push_back(cc);
    diff_ms.doubles.push_back((cu - bu) / 1000.0);
    ratio.doubles.push_back(diff_ratio(bu, cu));
  };
  row("Computing Time", b.computing_us, b.computing_count, c.computing_us, c.computing_count);
  for (size_t i = 0; i < kCategoryCount; ++i)
    row(std::string(category_label(static_cast<KernelCategory>(i))), b.category_us[i],
        b.category_count[i], c.category_us[i], c.category_count[i]);
  row("Uncovered Communication Time", b.uncovered_comm_us, b.comm_count, c.uncovered_comm_us,
      c.comm_count);
  row("Free Time", b.free_us, 0, c.free_us, 0);
  row("E2E Time", b.e2e_us, 0, c.e2e_us, 0);
  return t;
}

std::string format_overall_table(const io::Table& t) {
  const auto* metric = t.find("metric");
  const auto* bms = t.find("base_ms");
  const auto* cms = t.find("comparison_ms");
  const auto* bc = t.find("base_count");
  const auto* cc = t.find("comparison_count");
  const auto* dms = t.find("diff_ms");
  const auto* r = t.find("diff_ratio");
  if (!metric || !bms || !cms || !dms || !r || !bc || !cc) return {};
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-40s %12s %8s %12s %8s %12s %9s\n", "Metric", "Base(ms)",
                "Count", "Comp(ms)", "Count", "Diff(ms)", "Ratio");
  out += line;
  out += std::string(106, '-') + "\n";
  for (size_t i = 0; i < t.rows(); ++i) {
    std::snprintf(line, sizeof line, "%-40s %12.3f %8lld %12.3f %8lld %+12.3f %9.3f\n",
                  metric->strings[i].c_str(), bms->doubles[i], static_cast<long long>(bc->ints[i]),
                  cms->doubles[i], static_cast<long long>(cc->ints[i]), dms->doubles[i],
                  r->doubles[i]);
    out += line;
  }
  return out;
}

}  // namespace cs::compare
