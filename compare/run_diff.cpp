#include "compare/run_diff.h"

#include "compare/host_regressions.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "compare/diff.h"
#include "io/comm_keys.h"
#include "msprof_analyze/documents/cluster_matrix.h"
#include "msprof_analyze/documents/communication_groups.h"
#include "readers/matrix.h"

namespace cs::compare {

namespace {

using load::RankData;

constexpr size_t kRankRowsKept = 20;  // non-significant rank rows kept (most impact first)

// Ranks of both sides, sorted; index of each rank on each side (-1 when absent).
struct Alignment {
  std::vector<int> ranks;
  std::vector<int> base_index, comp_index;
};

Alignment align(const std::vector<RankData>& base, const std::vector<RankData>& comp,
                io::Diagnostics& diag) {
  std::map<int, std::pair<int, int>> m;
  for (size_t i = 0; i < base.size(); ++i) m[base[i].rank()] = {static_cast<int>(i), -1};
  for (size_t i = 0; i < comp.size(); ++i) {
    auto [it, added] = m.try_emplace(comp[i].rank(), -1, static_cast<int>(i));
    if (!added) it->second.second = static_cast<int>(i);
  }
  Alignment a;
  for (const auto& [rank, idx] : m) {
    a.ranks.push_back(rank);
    a.base_index.push_back(idx.first);
    a.comp_index.push_back(idx.second);
    if (idx.first < 0 || idx.second < 0)
      diag.warn(idx.first < 0 ? comp[static_cast<size_t>(idx.second)].entry.path
                              : base[static_cast<size_t>(idx.first)].entry.path,
                0,
                "rank " + std::to_string(rank) + " is only in the " +
                    (idx.first < 0 ? "comparison" : "base") + " run; compared against zeros",
                "profile the same ranks in both runs, or ignore this rank's rows");
  }
  return a;
}

// Steps a rank profiled (rows of its step trace), at least 1: totals become per-step values.
double steps_of(const RankData& d) {
  readers::StepTraceFile scratch;
  const readers::StepTraceFile& st = d.step_trace.read(scratch);
  return st.rows.empty() ? 1.0 : static_cast<double>(st.rows.size());
}

// "step3" -> "3" (communication.json step names as step_trace_time.csv writes them).
std::string step_number(const std::string& s) {
  return s.rfind("step", 0) == 0 && s.size() > 4 ? s.substr(4) : s;
}

// (step, metric) -> µs of one rank: step trace columns plus communication transit and wait.
using StepMetrics = std::map<std::pair<std::string, std::string>, double>;

StepMetrics step_metrics(const RankData& d) {
  StepMetrics m;
  readers::StepTraceFile scratch;
  const readers::StepTraceFile& st = d.step_trace.read(scratch);
  for (const auto& row : st.rows)
    for (size_t c = 0; c < st.columns.size() && c < row.values.size(); ++c)
      if (!std::isnan(row.values[c])) m[{row.step, st.columns[c]}] = row.values[c];
  readers::CommunicationFile unpacked;  // filled only if the rank is held packed
  for (const auto& step : d.communication.read(unpacked).steps) {
    double transit = 0, wait = 0;
    bool any = false;
    for (const auto* ops : {&step.collective, &step.p2p})
      for (const auto& op : *ops) {
        if (op.is_total() || !op.has_time_info) continue;
        transit += op.time.get(readers::kTransitTimeMs) * 1000.0;
        wait += op.time.get(readers::kWaitTimeMs) * 1000.0;
        any = true;
      }
    if (!any) continue;
    const std::string s = step_number(step.step);
    m[{s, "Communication Transit"}] += transit;
    m[{s, "Communication Wait"}] += wait;
  }
  return m;
}

// Numeric-aware order of step names ("2" < "10").
bool step_less(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

io::Table rank_diff_table(const std::vector<RankData>& base, const std::vector<RankData>& comp,
                          const Alignment& al) {
  struct Row {
    int rank;
    std::string step, metric;
    double b, c;
  };
  std::vector<Row> rows;
  for (size_t i = 0; i < al.ranks.size(); ++i) {
    StepMetrics mb, mc;
    if (al.base_index[i] >= 0) mb = step_metrics(base[static_cast<size_t>(al.base_index[i])]);
    if (al.comp_index[i] >= 0) mc = step_metrics(comp[static_cast<size_t>(al.comp_index[i])]);
    std::set<std::pair<std::string, std::string>> keys;
    for (const auto& kv : mb) keys.insert(kv.first);
    for (const auto& kv : mc) keys.insert(kv.first);
    for (const auto& k : keys) {
      auto b = mb.find(k), c = mc.find(k);
      rows.push_back({al.ranks[i], k.first, k.second, b == mb.end() ? 0.0 : b->second,
                      c == mc.end() ? 0.0 : c->second});
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) {
    const double dx = std::fabs(x.c - x.b), dy = std::fabs(y.c - y.b);
    if (dx != dy) return dx > dy;
    if (x.rank != y.rank) return x.rank < y.rank;
    if (x.step != y.step) return step_less(x.step, y.step);
    return x.metric < y.metric;
  });
  io::Table t("rank_diff");
  auto& rank = t.add_int("rank");
  auto& step = t.add_string("step");
  auto& metric = t.add_string("metric");
  auto& b = t.add_double("base_us", "us");
  auto& c = t.add_double("comparison_us", "us");
  auto& d = t.add_double("diff_us", "us");
  auto& r = t.add_double("diff_ratio", "ratio");
  for (const auto& row : rows) {
    rank.ints.push_back(row.rank);
    step.strings.push_back(row.step);
    metric.strings.push_back(row.metric);
    b.doubles.push_back(row.b);
    c.doubles.push_back(row.c);
    d.doubles.push_back(row.c - row.b);
    r.doubles.push_back(diff_ratio(row.b, row.c));
  }
  return t;
}

// Per-rank value of one candidate on each side, keyed by rank.
using PerRank = std::map<int, std::pair<double, double>>;

// One candidate from its per-rank values; noise from its own members, or from `reference`
// member diffs when given.
Regression from_members(const std::string& what, const std::string& key, const PerRank& values,
                        const NoiseOptions& opt, const std::vector<double>* reference = nullptr) {
  MemberValues v;
  std::vector<int> ranks;
  for (const auto& [rank, bc] : values) {
    ranks.push_back(rank);
    v.base.push_back(bc.first);
    v.comparison.push_back(bc.second);
  }
  const Assessment a = reference ? assess_against(v, *reference, opt) : assess_members(v, opt);
  Regression r;
  r.what = what;
  r.key = key;
  r.base_us = v.base[a.extreme];
  r.comparison_us = v.comparison[a.extreme];
  r.diff_us = a.diff;
  r.impact_us = a.impact;
  r.noise_us = a.noise;
  r.significant = a.significant;
  r.where = a.outlier || !a.shift ? "rank " + std::to_string(ranks[a.extreme])
                                  : "all " + std::to_string(ranks.size()) + " ranks";
  return r;
}

void rank_candidates(const std::vector<RankData>& base, const std::vector<RankData>& comp,
                     const Alignment& al, const NoiseOptions& opt, std::vector<Regression>& out) {
  auto computing = [](const RankData& d) {
    double sum = 0;
    int n = 0;
    readers::StepTraceFile scratch;
    const readers::StepTraceFile& st = d.step_trace.read(scratch);
    for (const auto& row : st.rows) {
      const double v = st.get(row, "Computing");
      if (std::isnan(v)) continue;
      sum += v;
      ++n;
    }
    return n ? sum / n : 0.0;
  };
  MemberValues v;
  for (size_t i = 0; i < al.ranks.size(); ++i) {
    v.base.push_back(al.base_index[i] < 0 ? 0 : computing(base[size_t(al.base_index[i])]));
    v.comparison.push_back(al.comp_index[i] < 0 ? 0 : computing(comp[size_t(al.comp_index[i])]));
  }
  std::vector<Regression> rows;
  const auto each = assess_each(v, opt);
  for (size_t i = 0; i < al.ranks.size(); ++i) {
    const Assessment& a = each[i];
    Regression r;
    r.what = "rank";
    r.key = "rank " + std::to_string(al.ranks[i]);
    r.where = r.key;
    r.base_us = v.base[i];
    r.comparison_us = v.comparison[i];
    r.diff_us = a.diff;
    r.impact_us = a.impact;
    r.noise_us = a.noise;
    r.significant = a.significant;
    rows.push_back(std::move(r));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Regression& x, const Regression& y) {
    if (x.significant != y.significant) return x.significant;
    return std::fabs(x.impact_us) > std::fabs(y.impact_us);
  });
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].significant || i < kRankRowsKept) out.push_back(std::move(rows[i]));
}

// HCCL tasks in kernel_details.csv (Type hcom_*): their durations include waiting for the
// slowest member, an effect; communication is judged by transit time instead.
bool is_hccl_key(std::string_view key) {
  return key.size() >= 5 && (key.substr(0, 5) == "hcom_" || key.substr(0, 5) == "HCOM_");
}

void operator_candidates(const std::vector<RankData>& base, const std::vector<RankData>& comp,
                         const NoiseOptions& opt, std::vector<Regression>& out) {
  std::map<std::string, PerRank, std::less<>> keys;
  for (int side = 0; side < 2; ++side)
    for (const auto& d : side == 0 ? base : comp) {
      const double steps = steps_of(d);
      stats::OperatorTable scratch;  // filled only while the rank's table is packed or spilled
      for (const auto& [key, st] : d.operators.read(scratch).keys()) {
        if (is_hccl_key(key)) continue;
        auto t = st.rank_totals.find(d.rank());
        if (t == st.rank_totals.end()) continue;
        auto& bc = keys[key][d.rank()];
        (side == 0 ? bc.first : bc.second) += t->second / steps;
      }
    }
  for (const auto& [key, values] : keys) out.push_back(from_members("operator", key, values, opt));
}

// Group hash -> "pg_name (r0, r1, ...)" from one side's groups.
std::map<std::string, std::string> group_labels(const std::vector<RankData>& ranks) {
  io::Diagnostics scratch;
  const auto groups = documents::build_comm_groups(ranks, {}, scratch);
  std::map<std::string, std::string> out;
  for (const auto* g : groups.all()) {
    std::string label = g->pg_name.empty() ? std::string() : g->pg_name + " ";
    label += "(";
    for (size_t i = 0; i < g->rank_set.size(); ++i)
      label += (i ? ", " : "") + std::to_string(g->rank_set[i]);
    out[g->group_name] = label + ")";
  }
  return out;
}

void communication_candidates(const std::vector<RankData>& base, const std::vector<RankData>& comp,
                              const NoiseOptions& opt, std::vector<Regression>& out) {
  std::map<std::string, PerRank> keys;
  std::map<std::string, std::string> type_of;  // key -> op type
  for (int side = 0; side < 2; ++side) {
    const auto& ranks = side == 0 ? base : comp;
    const auto labels = group_labels(ranks);
    for (const auto& d : ranks) {
      const double steps = steps_of(d);
      readers::CommunicationFile unpacked;  // filled only if the rank is held packed
      for (const auto& step : d.communication.read(unpacked).steps)
        for (const auto* ops : {&step.collective, &step.p2p})
          for (const auto& op : *ops) {
            if (op.is_total() || !op.has_time_info) continue;
            auto type = readers::matrix_op_type(op.op_name());
            if (type.empty()) type = std::string(op.op_name());
            auto label = labels.find(std::string(op.group()));
            const std::string key =
                type + " " +
                (label == labels.end() ? "group " + std::string(op.group()) : label->second);
            type_of[key] = type;
            auto& bc = keys[key][d.rank()];
            (side == 0 ? bc.first : bc.second) +=
                op.time.get(readers::kTransitTimeMs) * 1000.0 / steps;
          }
    }
  }
  // Noise: the member diffs of every group of the same op type, pooled.
  std::map<std::string, std::vector<double>> pooled;
  for (const auto& [key, values] : keys)
    for (const auto& [rank, bc] : values) pooled[type_of[key]].push_back(bc.second - bc.first);
  for (const auto& [key, values] : keys)
    out.push_back(from_members("communication", key, values, opt, &pooled[type_of[key]]));
}

void link_candidates(const std::vector<RankData>& base, const std::vector<RankData>& comp,
                     const NoiseOptions& opt, std::vector<Regression>& out) {
  // transport -> (src, dst) -> (base, comparison) µs per step
  std::map<std::string, std::map<std::pair<int, int>, std::pair<double, double>>> links;
  for (int side = 0; side < 2; ++side) {
    const auto& ranks = side == 0 ? base : comp;
    io::Diagnostics scratch;
    const auto groups = documents::build_comm_groups(ranks, {}, scratch);
    const auto merged = documents::merge_matrix_links(ranks, groups, scratch);
    std::set<std::string> steps;
    for (const auto& l : merged) steps.emplace(l.step());
    const double n = steps.empty() ? 1.0 : static_cast<double>(steps.size());
    for (const auto& l : merged) {
      if (!io::is_total_op_info(l.op_key()) || l.src_rank == l.dst_rank) continue;
      auto& bc = links[std::string(l.transport)][{l.src_rank, l.dst_rank}];
      (side == 0 ? bc.first : bc.second) += l.time_ms * 1000.0 / n;
    }
  }
  for (const auto& [transport, by_link] : links) {
    MemberValues v;
    std::vector<std::pair<int, int>> ids;
    for (const auto& [id, bc] : by_link) {
      ids.push_back(id);
      v.base.push_back(bc.first);
      v.comparison.push_back(bc.second);
    }
    std::vector<Regression> rows;
    const auto each = assess_each(v, opt);
    for (size_t i = 0; i < ids.size(); ++i) {
      const Assessment& a = each[i];
      if (!a.significant && std::fabs(a.diff) <= 0) continue;
      Regression r;
      r.what = "link";
      r.key = std::to_string(ids[i].first) + "-" + std::to_string(ids[i].second) + " " + transport;
      r.where = "link " + std::to_string(ids[i].first) + "-" + std::to_string(ids[i].second);
      r.base_us = v.base[i];
      r.comparison_us = v.comparison[i];
      r.diff_us = a.diff;
      r.impact_us = a.impact;
      r.noise_us = a.noise;
      r.significant = a.significant;
      rows.push_back(std::move(r));
    }
    std::stable_sort(rows.begin(), rows.end(), [](const Regression& x, const Regression& y) {
      if (x.significant != y.significant) return x.significant;
      return std::fabs(x.impact_us) > std::fabs(y.impact_us);
    });
    for (size_t i = 0; i < rows.size(); ++i)
      if (rows[i].significant || i < kRankRowsKept) out.push_back(std::move(rows[i]));
  }
}

io::Table regressions_table(const std::vector<Regression>& rows) {
  io::Table t("regressions");
  auto& what = t.add_string("what");
  auto& key = t.add_string("key");
  auto& b = t.add_double("base_us", "us");
  auto& c = t.add_double("comparison_us", "us");
  auto& d = t.add_double("diff_us", "us");
  auto& ratio = t.add_double("diff_ratio", "ratio");
  auto& sig = t.add_int("significant");
  auto& where = t.add_string("where");
  auto& impact = t.add_double("impact_us", "us");
  auto& noise = t.add_double("noise_us", "us");
  for (const auto& r : rows) {
    what.strings.push_back(r.what);
    key.strings.push_back(r.key);
    b.doubles.push_back(r.base_us);
    c.doubles.push_back(r.comparison_us);
    d.doubles.push_back(r.diff_us);
    ratio.doubles.push_back(diff_ratio(r.base_us, r.comparison_us));
    sig.ints.push_back(r.significant ? 1 : 0);
    where.strings.push_back(r.where);
    impact.doubles.push_back(r.impact_us);
    noise.doubles.push_back(r.noise_us);
  }
  return t;
}

}  // namespace

std::vector<Regression> find_regressions(const std::vector<RankData>& base,
                                         const std::vector<RankData>& comparison,
                                         const NoiseOptions& opt, io::Diagnostics& diag) {
  io::Diagnostics scratch;  // alignment warnings are reported once, by compare_runs
  const Alignment al = align(base, comparison, scratch);
  (void)diag;
  std::vector<Regression> out;
  rank_candidates(base, comparison, al, opt, out);
  operator_candidates(base, comparison, opt, out);
  communication_candidates(base, comparison, opt, out);
  link_candidates(base, comparison, opt, out);
  host_candidates(base, comparison, opt, out);  // compare/host_regressions.h
  std::stable_sort(out.begin(), out.end(), [](const Regression& x, const Regression& y) {
    if (x.significant != y.significant) return x.significant;
    const double ix = std::fabs(x.impact_us), iy = std::fabs(y.impact_us);
    if (ix != iy) return ix > iy;
    return std::tie(x.what, x.key) < std::tie(y.what, y.key);
  });
  return out;
}

RunTables compare_runs(const std::vector<RankData>& base, const std::vector<RankData>& comparison,
                       const NoiseOptions& opt, io::Diagnostics& diag) {
  RunTables t;
  const Alignment al = align(base, comparison, diag);
  t.ranks_compared = static_cast<int>(al.ranks.size());
  t.rank_diff = rank_diff_table(base, comparison, al);
  t.ranked = find_regressions(base, comparison, opt, diag);
  t.regressions = regressions_table(t.ranked);
  return t;
}

std::string format_top_regressions(const std::vector<Regression>& r, size_t n) {
  std::string out;
  size_t shown = 0;
  for (const auto& x : r) {
    if (!x.significant || shown == n) break;
    char line[512];
    std::snprintf(line, sizeof line, "  %-13s %-40s %+12.1f us/step  (%s, noise %.1f us)\n",
                  x.what.c_str(), x.key.c_str(), x.impact_us, x.where.c_str(), x.noise_us);
    out += line;
    ++shown;
  }
  if (shown == 0) return "Run vs run: no significant regression (changes are within the noise)\n";
  return "Run vs run, top regressions (significant, most impact first):\n" + out;
}

}  // namespace cs::compare
