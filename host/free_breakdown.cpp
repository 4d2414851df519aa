// free_breakdown: Free intervals intersected with the host's cause ranges, in precedence order.

#include "host/free_breakdown.h"

#include <algorithm>
#include <array>

namespace cs::host {

namespace {

using Interval = std::pair<int64_t, int64_t>;  // [first, second)

// Sorted, merged union of one cause's ranges.
std::vector<Interval> merged(std::vector<Interval> v) {
  std::sort(v.begin(), v.end());
  std::vector<Interval> out;
  for (const auto& iv : v) {
    if (iv.second <= iv.first) continue;
    if (!out.empty() && iv.first <= out.back().second)
      out.back().second = std::max(out.back().second, iv.second);
    else
      out.push_back(iv);
  }
  return out;
}

// Splits `piece` by the union `cover`: adds the covered length to `covered`, the rest to `rest`.
void split(const Interval& piece, const std::vector<Interval>& cover, int64_t& covered,
           std::vector<Interval>& rest) {
  auto it = std::upper_bound(cover.begin(), cover.end(), Interval{piece.first, INT64_MAX});
  if (it != cover.begin()) --it;
  int64_t at = piece.first;
  for (; it != cover.end() && it->first < piece.second; ++it) {
    if (it->second <= at) continue;
    const int64_t s = std::max(at, it->first);
    const int64_t e = std::min(piece.second, it->second);
    if (s > at) rest.push_back({at, s});
    covered += e - s;
    at = e;
  }
  if (at < piece.second) rest.push_back({at, piece.second});
}

// True when the device task that ends the Free interval `f` (the first to start at its end,
// within 1 µs) was launched by the host only after the device had gone idle: the device waited
// for dispatch.
bool starved_by_host(const std::vector<Interval>& task_launch, const FreeSpan& f) {
  constexpr int64_t kSlackNs = 1000;
  const int64_t from = std::max(f.start_ns + 1, f.end_ns - kSlackNs);
  auto it = std::lower_bound(task_launch.begin(), task_launch.end(), Interval{from, INT64_MIN});
  if (it == task_launch.end() || it->first > f.end_ns + kSlackNs) return false;
  return it->second >= f.start_ns;
}

constexpr size_t kCauses = static_cast<size_t>(Cause::kCount);

}  // namespace

std::vector<StepFree> free_breakdown(const HostInput& in) {
  if (!in.has_free) return {};
  std::array<std::vector<Interval>, kCauses> cover;
  {
    std::array<std::vector<Interval>, kCauses> raw;
    for (const CauseSpan& c : in.causes)
      raw[static_cast<size_t>(c.cause)].push_back({c.start_ns, c.end_ns});
    for (size_t i = 0; i < kCauses; ++i) cover[i] = merged(std::move(raw[i]));
  }
  // Device tasks by start, with when their launch was issued on the host.
  std::vector<Interval> task_launch;  // (device start, runtime launch)
  for (const DeviceLaunch& l : in.launches) task_launch.push_back({l.device_start_ns, l.launch_ns});
  std::sort(task_launch.begin(), task_launch.end());
  std::vector<StepRange> steps = in.steps;
  std::sort(steps.begin(), steps.end(),
            [](const StepRange& a, const StepRange& b) { return a.start_ns < b.start_ns; });
  std::vector<StepFree> rows;
  if (steps.empty()) {
    rows.push_back(StepFree{});
  } else {
    for (const auto& s : steps)
      rows.push_back(
          StepFree{s.step, 0, static_cast<double>(s.end_ns - s.start_ns) / 1000.0, {}, 0});
  }
  // DataLoader time per step, whether the device was free or not (loading before the step's
  // first task shows as Preparing, not Free).
  const auto& data = cover[static_cast<size_t>(Cause::kData)];
  for (size_t i = 0; i < steps.size(); ++i) {
    int64_t covered = 0;
    std::vector<Interval> rest;
    split({steps[i].start_ns, steps[i].end_ns}, data, covered, rest);
    rows[i].data_host_us = static_cast<double>(covered) / 1000.0;
  }
  for (const FreeSpan& f : in.free) {
    size_t row = 0;
    if (!steps.empty()) {
      auto it = std::upper_bound(steps.begin(), steps.end(), f.start_ns,
                                 [](int64_t ns, const StepRange& s) { return ns < s.start_ns; });
      if (it == steps.begin()) continue;
      --it;
      if (f.start_ns > it->end_ns) continue;
      row = static_cast<size_t>(it - steps.begin());
    }
    StepFree& r = rows[row];
    r.free_us += f.dur_us;
    std::vector<Interval> pieces{{f.start_ns, f.end_ns}}, rest;
    std::array<double, kCauses> part{};
    double parts = 0;
    const std::vector<Interval> starved = starved_by_host(task_launch, f)
                                              ? std::vector<Interval>{{f.start_ns, f.end_ns}}
                                              : std::vector<Interval>{};
    for (size_t c = 0; c < kCauses && !pieces.empty(); ++c) {
      int64_t covered = 0;
      rest.clear();
      const auto& by = c == static_cast<size_t>(Cause::kDispatch) ? starved : cover[c];
      for (const auto& p : pieces) split(p, by, covered, rest);
      pieces.swap(rest);
      part[c] = static_cast<double>(covered) / 1000.0;
      parts += part[c];
    }
    // The interval's nanoseconds may exceed its µs as written by a rounding: take it off the
    // last cause so the parts never exceed the whole.
    for (size_t c = kCauses; parts > f.dur_us && c-- > 0;) {
      const double cut = std::min(part[c], parts - f.dur_us);
      part[c] -= cut;
      parts -= cut;
    }
    for (size_t c = 0; c < kCauses; ++c) r.cause_us[c] += part[c];
    r.unattributed_us += f.dur_us - parts;
  }
  std::sort(rows.begin(), rows.end(),
            [](const StepFree& a, const StepFree& b) { return a.step < b.step; });
  return rows;
}

std::vector<StepFree> unattributed_free(const std::vector<std::pair<int64_t, double>>& step_free) {
  std::vector<StepFree> rows;
  for (const auto& [step, free] : step_free) rows.push_back(StepFree{step, free, 0, {}, free});
  std::sort(rows.begin(), rows.end(),
            [](const StepFree& a, const StepFree& b) { return a.step < b.step; });
  return rows;
}

}  // namespace cs::host
