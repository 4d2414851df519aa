#include "analysis/step_deviation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "stats/outliers.h"

namespace cs::analysis {

namespace {

struct Cell {
  std::vector<int> slot;  // each value's rank, by its slot (RankSlots)
  std::vector<double> computing, free;
};

struct Acc {
  double sum_excess = 0, sum_rel = 0, sum_sigma = 0;
  double z_min = std::numeric_limits<double>::infinity();
  int steps = 0;
};

// `slot`: each value's rank's slot in `acc` (RankSlots).
void judge(const std::vector<double>& v, const std::vector<int>& slot, std::vector<Acc>& acc) {
  const double med = stats::median(v);
  if (!std::isfinite(med)) return;
  // A floor on the noise so identical values do not give infinite z.
  const double sigma = std::max({stats::robust_sigma(v), 1e-4 * std::abs(med), 1e-3});
  for (size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) continue;
    Acc& a = acc[static_cast<size_t>(slot[i])];
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
  // The per-rank working values sit in vectors by the rank's slot, not in maps keyed by rank
  // (by_rank.h).
  std::vector<int> traced;
  for (const auto& r : ranks)
    if (r.has_step_trace && r.rank() >= 0) traced.push_back(r.rank());
  const RankSlots slots(std::move(traced));
  std::map<std::pair<std::string, int>, Cell> cells;  // (step, stage)
  // By slot: (sum of step ms, rows).
  std::vector<std::pair<double, int>> step_time(slots.size());
  std::unordered_set<std::string> seen;
  readers::StepTraceFile scratch;  // filled only while a rank's step trace is parked
  for (const auto& r : ranks) {
    if (!r.has_step_trace || r.rank() < 0) continue;
    const int slot = static_cast<int>(slots.of(r.rank()));
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
      c.slot.push_back(slot);
      c.computing.push_back(val(ci));
      c.free.push_back(val(fi));
      double stage_us = val(si);
      if (!std::isfinite(stage_us)) stage_us = val(ci) + val(fi);
      if (std::isfinite(stage_us)) {
        auto& s = step_time[static_cast<size_t>(slot)];
        s.first += stage_us / 1000.0;
        ++s.second;
      }
    }
    if (dups) {
      out.duplicate_rows += dups;
      out.duplicate_ranks.push_back(r.rank());
    }
  }
  std::vector<Acc> comp(slots.size()), fr(slots.size());
  std::vector<int> peers(slots.size(), -1);  // -1: the rank is in no cell
  std::map<int, std::vector<double>> stage_comp, stage_sigma;
  for (const auto& [key, c] : cells) {
    const int n = static_cast<int>(c.slot.size());
    for (int s : c.slot) {
      int& p = peers[static_cast<size_t>(s)];
      p = p < 0 ? n - 1 : std::min(p, n - 1);
    }
    stage_comp[key.second].push_back(stats::median(c.computing) / 1000.0);
    stage_sigma[key.second].push_back(stats::robust_sigma(c.computing) / 1000.0);
    if (n < 3) continue;  // two values give no noise estimate
    judge(c.computing, c.slot, comp);
    judge(c.free, c.slot, fr);
  }
  std::vector<ByRank<RankStepDeviation>::Entry> devs;
  for (size_t s = 0; s < slots.size(); ++s) {
    if (peers[s] < 0) continue;
    RankStepDeviation d;
    d.peers = peers[s];
    d.computing = finish(comp[s]);  // (no steps judged: an empty Deviation)
    d.free = finish(fr[s]);
    if (step_time[s].second > 0) d.step_ms = step_time[s].first / step_time[s].second;
    devs.emplace_back(slots.rank(s), d);
  }
  out.ranks = ByRank<RankStepDeviation>(std::move(devs));
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
