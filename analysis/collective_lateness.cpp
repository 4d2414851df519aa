#include "analysis/collective_lateness.h"

#include <algorithm>
#include <cmath>

#include "analysis/lateness_walk.h"
#include "stats/exact_sum.h"
#include "stats/outliers.h"

namespace cs::analysis {

namespace {

// The sums of a rank's instances, each independent of the order in which the instances are
// judged (stats/exact_sum.h): batches of any size give the same bits.
struct RankSums {
  stats::ExactSum expected, variance, imposed_ms, transit_rel;
};

int stage_of(const stats::RankStages& stages, int rank) {
  const auto it = stages.find(rank);
  return it == stages.end() ? -1 : it->second;
}

void judge_instance(std::vector<LatenessEntry>& e, const stats::RankStages& stages,
                    std::map<int, RankLateness>& out, std::map<int, RankSums>& sums,
                    std::vector<double>& scratch) {
  // One entry per rank (a rank listed twice is a duplicate row: keep the first).
  std::stable_sort(e.begin(), e.end(),
                   [](const LatenessEntry& a, const LatenessEntry& b) { return a.rank < b.rank; });
  e.erase(
      std::unique(e.begin(), e.end(),
                  [](const LatenessEntry& a, const LatenessEntry& b) { return a.rank == b.rank; }),
      e.end());
  const size_t n = e.size();
  if (n < 2) return;
  if (!stages.empty()) {
    const int s0 = stage_of(stages, e.front().rank);
    for (const auto& x : e)
      if (stage_of(stages, x.rank) != s0) return;  // spans stages: different work by design
  }
  bool any_sync = false;
  for (const auto& x : e) any_sync |= x.sync_ms > 0;
  for (auto& x : e) x.wait_ms = any_sync ? x.sync_ms : x.raw_wait_ms;
  size_t late = 0;
  for (size_t i = 1; i < n; ++i)
    if (e[i].wait_ms < e[late].wait_ms) late = i;
  scratch.clear();
  for (size_t i = 0; i < n; ++i)
    if (i != late) scratch.push_back(e[i].wait_ms);
  const double others = stats::median(scratch);
  const double spread = n > 2 ? stats::robust_sigma(scratch) : 0.0;
  const double cost = others - e[late].wait_ms;
  const bool decided = cost > 3 * spread && cost > 1e-9;
  const double own_cost = std::max(0.0, cost - e[late].prev_wait);
  scratch.clear();
  for (const auto& x : e) scratch.push_back(x.transit_ms);
  const double med_transit = stats::median(scratch);
  const double p = 1.0 / static_cast<double>(n);
  for (size_t i = 0; i < n; ++i) {
    RankLateness& r = out[e[i].rank];
    RankSums& sum = sums[e[i].rank];
    ++r.instances;
    r.max_group = std::max(r.max_group, static_cast<int>(n));
    if (med_transit > 0) {
      sum.transit_rel.add(e[i].transit_ms / med_transit - 1);
      ++r.transit_n;
    }
    if (!decided) continue;
    ++r.trials;
    sum.expected.add(p);
    sum.variance.add(p * (1 - p));
    if (i == late) {
      ++r.last;
      sum.imposed_ms.add(own_cost);
      if (own_cost > 0.5 * cost) r.late_steps.insert(e[i].step);
    }
  }
}

}  // namespace

double RankLateness::last_z() const {
  return variance > 0 ? (last - expected) / std::sqrt(variance) : 0.0;
}

std::map<int, RankLateness> collective_lateness(const std::vector<load::RankData>& ranks,
                                                const stats::RankStages& stages,
                                                const LatenessOptions& opts) {
  const LatenessWalk walk(
      ranks, opts.threads,
      opts.batch_entries > 0 ? opts.batch_entries : LatenessWalk::kBatchEntries);
  std::map<int, RankLateness> out;
  for (const auto& [rank, t] : walk.totals()) {
    RankLateness& r = out[rank];
    r.own_wait_ms = t.own_wait_ms;
    r.steps = t.steps;
  }
  std::map<int, RankSums> sums;
  std::vector<double> scratch;
  for (size_t b = 0; b < walk.size(); ++b)  // a batch of groups at a time, judged and let go
    for (std::vector<LatenessEntry>& e : walk.load(b, opts.threads))
      judge_instance(e, stages, out, sums, scratch);
  for (auto& [rank, r] : out) {
    const auto s = sums.find(rank);
    if (s == sums.end()) continue;
    r.expected = s->second.expected.value();
    r.variance = s->second.variance.value();
    r.imposed_ms = s->second.imposed_ms.value();
    r.transit_rel = s->second.transit_rel.value();
    if (r.transit_n > 0) r.transit_rel /= r.transit_n;
  }
  return out;
}

}  // namespace cs::analysis
