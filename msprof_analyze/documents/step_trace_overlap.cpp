#include "msprof_analyze/documents/step_trace_overlap.h"

#include <algorithm>
#include <cstdint>

namespace cs::documents {

std::vector<NsInterval> merge_continuous(std::vector<NsInterval>& ranges) {
  std::vector<NsInterval> out;
  if (ranges.empty()) return out;
  std::stable_sort(ranges.begin(), ranges.end(),
                   [](const NsInterval& a, const NsInterval& b) { return a.start < b.start; });
  size_t head = 0;  // the group's first interval, extended in place
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (ranges[i].start <= ranges[head].end) {
      ranges[head].end = std::max(ranges[head].end, ranges[i].end);
    } else {
      out.push_back(ranges[head]);
      head = i;
    }
  }
  out.push_back(ranges[head]);
  return out;
}

void pipeline_overlap(const std::vector<NsInterval>& communication,
                      const std::vector<NsInterval>& compute, int64_t* pure, int64_t* free) {
  struct Cur {
    int64_t start, end;
    bool comm;
  };
  std::vector<Cur> all;
  all.reserve(communication.size() + compute.size());
  for (const auto& c : communication) all.push_back({c.start, c.end, true});
  for (const auto& c : compute) all.push_back({c.start, c.end, false});
  std::stable_sort(all.begin(), all.end(),
                   [](const Cur& a, const Cur& b) { return a.start < b.start; });
  *pure = 0;
  *free = 0;
  if (all.empty()) return;
  Cur cur = all.front();
  for (size_t i = 1; i < all.size(); ++i) {
    const Cur& t = all[i];
    if (cur.end < t.start) {  // a gap: free time, and the current interval is done
      *free += t.start - cur.end;
      if (cur.comm) *pure += cur.end - cur.start;
      cur = t;
      continue;
    }
    if (cur.end < t.end) {  // t overlaps and reaches further
      if (cur.comm) {
        *pure += t.start - cur.start;
        cur = {cur.end, t.end, false};
      }
      if (t.comm) cur = {cur.end, t.end, true};
    } else {  // t lies inside the current interval
      if (cur.comm) {
        *pure += t.start - cur.start;
        cur = {t.end, cur.end, true};
      }
      if (t.comm) cur = {t.end, cur.end, false};
    }
  }
  if (cur.comm) *pure += cur.end - cur.start;
}

StepTraceTotals whole_run_totals(std::vector<NsInterval> compute,
                                 std::vector<NsInterval> communication) {
  StepTraceTotals t;
  const std::vector<NsInterval> compute_merged = merge_continuous(compute);
  for (const auto& r : compute_merged) t.computing += r.end - r.start;
  const std::vector<NsInterval> comm_merged = merge_continuous(communication);
  for (const auto& r : comm_merged) t.communication += r.end - r.start;
  // After the merge: a receive op heading a group now ends where its group ends.
  // Receive ops may overlap, so their sum is not bounded by the run's span: it and what is
  // derived from it are computed in 128 bits and saturate at the 64-bit limits.
  __int128 bubble = 0;
  for (const auto& r : communication)
    if (r.receive) bubble += r.end - r.start;
  pipeline_overlap(comm_merged, compute_merged, &t.communication_not_overlapped, &t.free);
  auto saturated = [](__int128 v) {
    return static_cast<int64_t>(std::clamp<__int128>(v, INT64_MIN, INT64_MAX));
  };
  t.bubble = saturated(bubble);
  t.communication_not_overlapped_exclude_receive =
      saturated(__int128{t.communication_not_overlapped} - bubble);
  t.overlapped = t.communication - t.communication_not_overlapped;
  t.stage = saturated(__int128{t.free} + t.computing + t.communication_not_overlapped - bubble);
  return t;
}

std::array<double, 9> totals_in_us(const StepTraceTotals& t) {
  auto us = [](int64_t ns) { return static_cast<double>(ns) / 1000.0; };
  return {us(t.computing),
          us(t.communication_not_overlapped),
          us(t.overlapped),
          us(t.communication),
          us(t.free),
          us(t.stage),
          us(t.bubble),
          us(t.communication_not_overlapped_exclude_receive),
          0.0};
}

}  // namespace cs::documents
