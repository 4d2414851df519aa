#include "analysis/collective_lateness.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

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

// The ranks' lateness (the result's entries, sorted by rank) and their sums being built, one slot
// per rank with communication data.
struct Slots {
  std::vector<LatenessByRank::Entry> entries;
  std::vector<RankSums> sums;

  // The slot of `rank`, or -1 when it has none (a rank the walk's first pass did not total).
  ptrdiff_t of(int rank) const {
    const auto it =
        std::lower_bound(entries.begin(), entries.end(), rank,
                         [](const LatenessByRank::Entry& e, int r) { return e.first < r; });
    return it != entries.end() && it->first == rank ? it - entries.begin() : -1;
  }
};

int stage_of(const stats::RankStages& stages, int rank) {
  const auto it = stages.find(rank);
  return it == stages.end() ? -1 : it->second;
}

void judge_instance(std::vector<LatenessEntry>& e, const stats::RankStages& stages, Slots& slots,
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
    const ptrdiff_t slot = slots.of(e[i].rank);
    if (slot < 0) continue;
    RankLateness& r = slots.entries[slot].second;
    RankSums& sum = slots.sums[slot];
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
      if (own_cost > 0.5 * cost) {
        const auto at = std::lower_bound(r.late_steps.begin(), r.late_steps.end(), e[i].step);
        if (at == r.late_steps.end() || *at != e[i].step) r.late_steps.insert(at, e[i].step);
      }
    }
  }
}

}  // namespace

double RankLateness::last_z() const {
  return variance > 0 ? (last - expected) / std::sqrt(variance) : 0.0;
}

LatenessByRank collective_lateness(const std::vector<load::RankData>& ranks,
                                   const stats::RankStages& stages, const LatenessOptions& opts) {
  const LatenessWalk walk(
      ranks, opts.threads,
      opts.batch_entries > 0 ? opts.batch_entries : LatenessWalk::kBatchEntries);
  Slots slots;  // every rank the first pass totalled, in rank order (the totals' map order)
  slots.entries.reserve(walk.totals().size());
  for (const auto& [rank, t] : walk.totals()) {
    RankLateness& r = slots.entries.emplace_back(rank, RankLateness{}).second;
    r.own_wait_ms = t.own_wait_ms;
    r.steps = t.steps;
  }
  slots.sums.resize(slots.entries.size());
  std::vector<double> scratch;
  for (size_t b = 0; b < walk.size(); ++b)  // a batch of groups at a time, judged and let go
    for (std::vector<LatenessEntry>& e : walk.load(b, opts.threads))
      judge_instance(e, stages, slots, scratch);
  for (size_t i = 0; i < slots.entries.size(); ++i) {
    RankLateness& r = slots.entries[i].second;
    const RankSums& s = slots.sums[i];
    r.expected = s.expected.value();
    r.variance = s.variance.value();
    r.imposed_ms = s.imposed_ms.value();
    r.transit_rel = s.transit_rel.value();
    if (r.transit_n > 0) r.transit_rel /= r.transit_n;
    r.late_steps.shrink_to_fit();
  }
  return LatenessByRank(std::move(slots.entries));
}

}  // namespace cs::analysis
