#include "analysis/step_deviation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "stats/outliers.h"

namespace cs::analysis {

namespace {

struct Cell {
  std::vector<int> rank;
  std::vector<double> computing, free;
};

struct Acc {
  double sum_excess = 0, sum_rel = 0, sum_sigma = 0;
  double z_min = std::numeric_limits<double>::infinity();
  int steps = 0;
};

void judge(const std::vector<double>& v, const std::vector<int>& rank, std::map<int, Acc>& acc) {
  const double med = stats::median(v);
  if (!std::isfinite(med)) return;
  // A floor on the noise so identical values do not give infinite z.
  const double sigma = std::max({stats::robust_sigma(v), 1e-4 * std::abs(med), 1e-3});
  for (size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) continue;
    Acc& a = acc[rank[i]];
    a.sum_excess += (v[i] - med) / 1000.0;
    a.sum_rel += med > 0 ? v[i] / med - 1 : 0.0;
    a.sum_sigma += sigma / 1000.0;
    a.z_min = std::min(a.z_min, (v[i] - med) / sigma);
    ++a.steps;
  }
}

Deviation finish(const Acc& a) {
  Deviation d;
  if (a.steps == 0) return d;
  d.steps = a.steps;
  d.excess_ms = a.sum_excess / a.steps;
  d.rel = a.sum_rel / a.steps;
  d.sigma_ms = a.sum_sigma / a.steps;
  d.z_min = a.z_min;
  return d;
}

}  // namespace

StepDeviations step_deviations(const std::vector<load::RankData>& ranks,
                               const stats::RankStages& stages) {
  StepDeviations out;
  std::map<std::pair<std::string, int>, Cell> cells;  // (step, stage)
  std::map<int, std::pair<double, int>> step_time;    // rank -> (sum of step ms, rows)
  std::unordered_set<std::string> seen;
  readers::StepTraceFile scratch;  // filled only while a rank's step trace is parked
  for (const auto& r : ranks) {
    if (!r.has_step_trace || r.rank() < 0) continue;
    const auto it = stages.find(r.rank());
    const int stage = stages.empty() ? 0 : (it == stages.end() ? -1 : it->second);
    const readers::StepTraceFile& st = r.step_trace.read(scratch);
    const int ci = st.column("Computing"), fi = st.column("Free"), si = st.column("Stage");
    if (ci < 0) continue;
    seen.clear();
    size_t dups = 0;
    for (const auto& row : st.rows) {
      if (!seen.insert(row.step).second) {
        ++dups;
        continue;
      }
      Cell& c = cells[{row.step, stage}];
      const auto val = [&](int i) {
        return i >= 0 && static_cast<size_t>(i) < row.values.size() ? row.values[i] : std::nan("");
      };
      c.rank.push_back(r.rank());
      c.computing.push_back(val(ci));
      c.free.push_back(val(fi));
      double stage_us = val(si);
      if (!std::isfinite(stage_us)) stage_us = val(ci) + val(fi);
      if (std::isfinite(stage_us)) {
        auto& s = step_time[r.rank()];
        s.first += stage_us / 1000.0;
        ++s.second;
      }
    }
    if (dups) {
      out.duplicate_rows += dups;
      out.duplicate_ranks.push_back(r.rank());
    }
  }
  std::map<int, Acc> comp, fr;
  std::map<int, int> peers;
  std::map<int, std::vector<double>> stage_comp, stage_sigma;
  for (const auto& [key, c] : cells) {
    const int n = static_cast<int>(c.rank.size());
    for (int r : c.rank) {
      auto [it, fresh] = peers.try_emplace(r, n - 1);
      if (!fresh) it->second = std::min(it->second, n - 1);
    }
    stage_comp[key.second].push_back(stats::median(c.computing) / 1000.0);
    stage_sigma[key.second].push_back(stats::robust_sigma(c.computing) / 1000.0);
    if (n < 3) continue;  // two values give no noise estimate
    judge(c.computing, c.rank, comp);
    judge(c.free, c.rank, fr);
  }
  for (const auto& [rank, n] : peers) {
    RankStepDeviation d;
    d.peers = n;
    if (auto it = comp.find(rank); it != comp.end()) d.computing = finish(it->second);
    if (auto it = fr.find(rank); it != fr.end()) d.free = finish(it->second);
    if (auto it = step_time.find(rank); it != step_time.end() && it->second.second > 0)
      d.step_ms = it->second.first / it->second.second;
    out.ranks[rank] = d;
  }
  for (const auto& [stage, v] : stage_comp) {
    StageLoad s;
    s.stage = stage;
    double sum = 0, sig = 0;
    for (double x : v) sum += x;
    for (double x : stage_sigma[stage]) sig += std::isfinite(x) ? x : 0.0;
    s.computing_ms = sum / static_cast<double>(v.size());
    s.sigma_ms = sig / static_cast<double>(v.size());
    for (const auto& [rank, st] : stages)
      if (st == stage) ++s.ranks;
    if (stages.empty()) s.ranks = static_cast<int>(out.ranks.size());
    out.stages.push_back(s);
  }
  return out;
}

}  // namespace cs::analysis
