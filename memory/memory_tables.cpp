// The memory tables across the cluster (see cluster_memory.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "memory/cluster_memory.h"
#include "stats/outliers.h"

namespace cs::memory {

namespace {

constexpr int64_t kListedModule = int64_t{100} << 20;  // Insight lists modules from 100 MB

// numpy.quantile's linear interpolation over sorted values.
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

std::string holders_text(const RankMemory& m) {
  std::string s;
  for (const auto& h : m.holders) {
    if (!s.empty()) s += "; ";
    char buf[64];
    std::snprintf(buf, sizeof buf, " %.1f MB (%lld)", to_mb(h.bytes),
                  static_cast<long long>(h.blocks));
    s += h.op + buf;
  }
  return s;
}

std::string blocks_text(const RankMemory& m) {
  std::string s;
  for (const auto& b : m.live_at_peak) {
    if (!s.empty()) s += "; ";
    char buf[64];
    std::snprintf(buf, sizeof buf, " %.1f MB", to_mb(b.bytes));
    s += b.op + buf;
  }
  return s;
}

}  // namespace

io::Table memory_ranks_table(const std::vector<RankMemoryRef>& ranks,
                             const std::vector<MemoryFinding>& findings) {
  std::map<int, std::string> flags;
  for (const auto& f : findings)
    if (f.rank >= 0) flags[f.rank] += (flags[f.rank].empty() ? "" : ",") + f.kind;
  io::Table t("memory_ranks");
  auto& rank = t.add_int("rank");
  auto& stage = t.add_int("stage");
  auto& series = t.add_string("series");
  auto& pa = t.add_double("peak_allocated_mb", "MB");
  auto& pr = t.add_double("peak_reserved_mb", "MB");
  auto& app = t.add_double("peak_app_reserved_mb", "MB");
  auto& frag = t.add_double("reserved_minus_allocated_mb", "MB");
  auto& when = t.add_string("peak_time_us", "us");  // exact: "1736408883743396.450"
  auto& step = t.add_int("peak_step");
  auto& op = t.add_string("peak_operator");
  auto& cap = t.add_double("capacity_mb", "MB");
  auto& live = t.add_double("live_at_peak_mb", "MB");
  auto& holders = t.add_string("peak_holders");
  auto& blocks = t.add_string("largest_live_blocks");
  auto& growth = t.add_double("growth_mb_per_step", "MB");
  auto& nr = t.add_int("never_released_blocks");
  auto& nrmb = t.add_double("never_released_mb", "MB");
  auto& sg = t.add_double("static_graph_peak_mb", "MB");
  auto& flag = t.add_string("flag");
  for (const auto& r : ranks) {
    const RankMemory& m = *r.memory;
    rank.ints.push_back(r.rank);
    stage.ints.push_back(r.stage);
    series.strings.push_back(m.series);
    pa.doubles.push_back(to_mb(m.peak_allocated));
    pr.doubles.push_back(to_mb(m.peak_reserved));
    app.doubles.push_back(m.peak_app_reserved >= 0 ? to_mb(m.peak_app_reserved) : NAN);
    frag.doubles.push_back(to_mb(m.reserved_at_peak - m.peak_allocated));
    char at[48];
    std::snprintf(at, sizeof at, "%lld.%03lld", static_cast<long long>(m.peak_time_ns / 1000),
                  static_cast<long long>(m.peak_time_ns % 1000));
    when.strings.push_back(at);
    step.ints.push_back(m.peak_step);
    op.strings.push_back(m.peak_operator);
    cap.doubles.push_back(m.capacity > 0 ? to_mb(m.capacity) : NAN);
    live.doubles.push_back(to_mb(m.live_bytes_at_peak));
    holders.strings.push_back(holders_text(m));
    blocks.strings.push_back(blocks_text(m));
    growth.doubles.push_back(growth_per_step(m) / 1048576.0);
    nr.ints.push_back(m.never_released);
    nrmb.doubles.push_back(to_mb(m.never_released_bytes));
    sg.doubles.push_back(m.static_graph_peak >= 0 ? to_mb(m.static_graph_peak) : NAN);
    flag.strings.push_back(flags[r.rank]);
  }
  return t;
}

io::Table memory_steps_table(const std::vector<RankMemoryRef>& ranks) {
  io::Table t("memory_steps");
  auto& rank = t.add_int("rank");
  auto& step = t.add_int("step");
  auto& pa = t.add_double("peak_allocated_mb", "MB");
  auto& mn = t.add_double("min_allocated_mb", "MB");
  auto& pr = t.add_double("peak_reserved_mb", "MB");
  auto& growth = t.add_double("growth_mb", "MB");
  for (const auto& r : ranks) {
    const auto& steps = r.memory->steps;
    for (size_t k = 0; k < steps.size(); ++k) {
      rank.ints.push_back(r.rank);
      step.ints.push_back(steps[k].step);
      pa.doubles.push_back(to_mb(steps[k].peak_allocated));
      mn.doubles.push_back(to_mb(steps[k].min_allocated));
      pr.doubles.push_back(to_mb(steps[k].peak_reserved));
      growth.doubles.push_back(
          k == 0 ? 0.0 : to_mb(steps[k].peak_allocated - steps[k - 1].peak_allocated));
    }
  }
  return t;
}

io::Table memory_stages_table(const std::vector<RankMemoryRef>& ranks) {
  std::map<int, std::vector<const RankMemoryRef*>> by;
  for (const auto& r : ranks) by[r.stage].push_back(&r);
  io::Table t("memory_stages");
  auto& stage = t.add_int("stage");
  auto& n = t.add_int("ranks");
  auto& med = t.add_double("median_peak_mb", "MB");
  auto& mn = t.add_double("min_peak_mb", "MB");
  auto& mx = t.add_double("max_peak_mb", "MB");
  auto& mxr = t.add_int("max_rank");
  for (const auto& [s, rs] : by) {
    std::vector<double> v;
    const RankMemoryRef* top = rs.front();
    for (const auto* r : rs) {
      v.push_back(to_mb(r->memory->peak_allocated));
      if (r->memory->peak_allocated > top->memory->peak_allocated) top = r;
    }
    stage.ints.push_back(s);
    n.ints.push_back(static_cast<int64_t>(rs.size()));
    med.doubles.push_back(stats::median(v));
    mn.doubles.push_back(*std::min_element(v.begin(), v.end()));
    mx.doubles.push_back(*std::max_element(v.begin(), v.end()));
    mxr.ints.push_back(top->rank);
  }
  return t;
}

io::Table memory_operators_table(const std::vector<RankMemoryRef>& ranks) {
  struct Acc {
    int64_t calls = 0, bytes = 0, max_block = 0;
    std::vector<double> per_rank;  // MB
    double max_mb = -1;
    int max_rank = -1;
  };
  std::map<std::string, Acc> ops;
  for (const auto& r : ranks)
    for (const auto& o : r.memory->operators) {
      Acc& a = ops[o.op];
      a.calls += o.calls;
      a.bytes += o.bytes;
      a.max_block = std::max(a.max_block, o.max_block);
      const double v = to_mb(o.bytes);
      a.per_rank.push_back(v);
      if (v > a.max_mb) a.max_mb = v, a.max_rank = r.rank;
    }
  std::vector<std::pair<std::string, Acc>> rows(ops.begin(), ops.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second.bytes > b.second.bytes; });
  io::Table t("memory_operators");
  auto& name = t.add_string("operator");
  auto& n = t.add_int("ranks");
  auto& calls = t.add_int("calls");
  auto& total = t.add_double("total_mb", "MB");
  auto& p50 = t.add_double("p50_rank_mb", "MB");
  auto& p90 = t.add_double("p90_rank_mb", "MB");
  auto& mx = t.add_double("max_rank_mb", "MB");
  auto& mxr = t.add_int("max_rank");
  auto& blk = t.add_double("largest_block_mb", "MB");
  for (auto& [op, a] : rows) {
    std::sort(a.per_rank.begin(), a.per_rank.end());
    name.strings.push_back(op);
    n.ints.push_back(static_cast<int64_t>(a.per_rank.size()));
    calls.ints.push_back(a.calls);
    total.doubles.push_back(to_mb(a.bytes));
    p50.doubles.push_back(quantile(a.per_rank, 0.5));
    p90.doubles.push_back(quantile(a.per_rank, 0.9));
    mx.doubles.push_back(a.max_mb);
    mxr.ints.push_back(a.max_rank);
    blk.doubles.push_back(to_mb(a.max_block));
  }
  return t;
}

io::Table memory_components_table(const std::vector<RankMemoryRef>& ranks) {
  io::Table t("memory_components");
  auto& rank = t.add_int("rank");
  auto& kind = t.add_string("kind");
  auto& name = t.add_string("component");
  auto& peak = t.add_double("peak_reserved_mb", "MB");
  for (const auto& r : ranks)
    for (const auto& c : r.memory->components) {
      if (c.kind == "module" && c.peak_reserved < kListedModule) continue;
      rank.ints.push_back(r.rank);
      kind.strings.push_back(c.kind);
      name.strings.push_back(c.name);
      peak.doubles.push_back(to_mb(c.peak_reserved));
    }
  return t;
}

io::Table memory_curves_table(const std::vector<RankMemoryRef>& ranks) {
  io::Table t("memory_curves");
  auto& rank = t.add_int("rank");
  auto& start = t.add_double("start_us", "us");
  auto& mn = t.add_double("min_allocated_mb", "MB");
  auto& mx = t.add_double("max_allocated_mb", "MB");
  auto& res = t.add_double("max_reserved_mb", "MB");
  for (const auto& r : ranks)
    for (const auto& b : r.memory->curve) {
      rank.ints.push_back(r.rank);
      start.doubles.push_back(static_cast<double>(b.start_ns) / 1000.0);
      mn.doubles.push_back(to_mb(b.min_allocated));
      mx.doubles.push_back(to_mb(b.max_allocated));
      res.doubles.push_back(to_mb(b.max_reserved));
    }
  return t;
}

io::Table memory_groups_table(const std::vector<RankMemoryRef>& ranks,
                              const std::vector<MemoryGroup>& groups) {
  std::map<int, const RankMemory*> by_rank;
  for (const auto& r : ranks) by_rank[r.rank] = r.memory;
  io::Table t("memory_groups");
  auto& name = t.add_string("group");
  auto& id = t.add_string("id");
  auto& n = t.add_int("ranks");
  auto& med = t.add_double("median_peak_mb", "MB");
  auto& mx = t.add_double("max_peak_mb", "MB");
  auto& mxr = t.add_int("max_rank");
  auto& ratio = t.add_double("max_over_median", "ratio");
  for (const auto& g : groups) {
    std::vector<double> v;
    double top = -1;
    int top_rank = -1;
    for (int r : g.ranks) {
      auto it = by_rank.find(r);
      if (it == by_rank.end()) continue;
      const double p = to_mb(it->second->peak_allocated);
      v.push_back(p);
      if (p > top) top = p, top_rank = r;
    }
    if (v.empty()) continue;
    const double m = stats::median(v);
    name.strings.push_back(g.name);
    id.strings.push_back(g.id);
    n.ints.push_back(static_cast<int64_t>(v.size()));
    med.doubles.push_back(m);
    mx.doubles.push_back(top);
    mxr.ints.push_back(top_rank);
    ratio.doubles.push_back(m > 0 ? top / m : NAN);
  }
  return t;
}

io::Table memory_findings_table(const std::vector<MemoryFinding>& findings) {
  io::Table t("memory_findings");
  auto& rank = t.add_int("rank");
  auto& stage = t.add_int("stage");
  auto& kind = t.add_string("kind");
  auto& score = t.add_double("score");
  auto& ev = t.add_string("evidence");
  for (const auto& f : findings) {
    rank.ints.push_back(f.rank);
    stage.ints.push_back(f.stage);
    kind.strings.push_back(f.kind);
    score.doubles.push_back(f.score);
    ev.strings.push_back(f.evidence);
  }
  return t;
}

}  // namespace cs::memory
