#include "analysis/collective_lateness.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>

#include "stats/outliers.h"

namespace cs::analysis {

namespace {

struct Entry {
  int rank;
  int step;          // step id
  double prev_wait;  // its own wait in its previous op (in time)
  double wait_ms;    // sync when the instance has sync times, else wait (filled later)
  double sync_ms;
  double raw_wait_ms;
  double transit_ms;
};

double field(const readers::CommOp& op, readers::TimeField f) {
  return op.time.has(f) && std::isfinite(op.time.get(f)) ? op.time.get(f) : 0.0;
}

// A rank's wait in one op on its own: sync when reported, else wait.
double own_wait(const readers::CommOp& op) {
  return op.time.has(readers::kSyncTimeMs) ? field(op, readers::kSyncTimeMs)
                                           : field(op, readers::kWaitTimeMs);
}

int stage_of(const stats::RankStages& stages, int rank) {
  const auto it = stages.find(rank);
  return it == stages.end() ? -1 : it->second;
}

void judge_instance(std::vector<Entry>& e, const stats::RankStages& stages,
                    std::map<int, RankLateness>& out, std::vector<double>& scratch) {
  // One entry per rank (a rank listed twice is a duplicate row: keep the first).
  std::stable_sort(e.begin(), e.end(),
                   [](const Entry& a, const Entry& b) { return a.rank < b.rank; });
  e.erase(std::unique(e.begin(), e.end(),
                      [](const Entry& a, const Entry& b) { return a.rank == b.rank; }),
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
    ++r.instances;
    r.max_group = std::max(r.max_group, static_cast<int>(n));
    if (med_transit > 0) {
      r.transit_rel += e[i].transit_ms / med_transit - 1;
      ++r.transit_n;
    }
    if (!decided) continue;
    ++r.trials;
    r.expected += p;
    r.variance += p * (1 - p);
    if (i == late) {
      ++r.last;
      r.imposed_ms += own_cost;
      if (own_cost > 0.5 * cost) r.late_steps.insert(e[i].step);
    }
  }
}

}  // namespace

double RankLateness::last_z() const {
  return variance > 0 ? (last - expected) / std::sqrt(variance) : 0.0;
}

std::map<int, RankLateness> collective_lateness(const std::vector<load::RankData>& ranks,
                                                const stats::RankStages& stages) {
  std::unordered_map<std::string, std::vector<Entry>> instances;
  std::map<int, RankLateness> out;
  std::unordered_map<std::string, int> step_ids;
  struct Timed {
    double start;
    size_t order;
    int step;
    const std::string* step_name;
    const readers::CommOp* op;
    bool collective;
  };
  std::vector<Timed> timed;
  std::string key;
  readers::CommunicationFile unpacked;  // a rank still held packed is read through it
  for (const auto& r : ranks) {
    if (!r.has_communication || r.rank() < 0) continue;
    RankLateness& acc = out[r.rank()];
    timed.clear();
    for (const auto& step : r.communication.read(unpacked).steps) {
      const int sid =
          step_ids.try_emplace(step.step, static_cast<int>(step_ids.size())).first->second;
      bool any = false;
      for (const auto* ops : {&step.collective, &step.p2p})
        for (const auto& op : *ops) {
          if (op.is_total() || !op.has_time_info) continue;
          any = true;
          acc.own_wait_ms += own_wait(op);
          const double start = field(op, readers::kStartTimestampUs);
          timed.push_back({start, timed.size(), sid, &step.step, &op, ops == &step.collective});
        }
      acc.steps += any;
    }
    // Time order (file order where start times tie or are missing): each op's previous wait.
    std::sort(timed.begin(), timed.end(), [](const Timed& a, const Timed& b) {
      return a.start != b.start ? a.start < b.start : a.order < b.order;
    });
    double prev_wait = 0;
    for (const auto& t : timed) {
      const readers::CommOp& op = *t.op;
      if (t.collective) {
        key.assign(*t.step_name);
        key += '\n';
        key += op.name;
        instances[key].push_back({r.rank(), t.step, prev_wait, 0, field(op, readers::kSyncTimeMs),
                                  field(op, readers::kWaitTimeMs),
                                  field(op, readers::kTransitTimeMs)});
      }
      prev_wait = own_wait(op);
    }
  }
  std::vector<double> scratch;
  for (auto& [k, e] : instances) judge_instance(e, stages, out, scratch);
  for (auto& [rank, r] : out)
    if (r.transit_n > 0) r.transit_rel /= r.transit_n;
  return out;
}

}  // namespace cs::analysis
