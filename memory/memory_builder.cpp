#include "memory/memory_builder.h"

#include <algorithm>
#include <utility>

namespace cs::memory {

namespace {

// The operators' series as MindStudio Insight picks it.
// Kineto traces (memory_kineto.h): the device's series, "CUDA" or "device".
constexpr std::string_view kSeriesOrder[] = {"PTA+GE", "MindSpore+GE", "GE",
                                             "PTA",    "CUDA",         "device"};

}  // namespace

RankMemoryBuilder::RankMemoryBuilder(std::vector<StepRange> steps) : steps_(std::move(steps)) {
  std::sort(steps_.begin(), steps_.end(),
            [](const StepRange& a, const StepRange& b) { return a.start_ns < b.start_ns; });
}

int64_t RankMemoryBuilder::step_of(int64_t t) const {
  auto it = std::upper_bound(steps_.begin(), steps_.end(), t,
                             [](int64_t v, const StepRange& s) { return v < s.start_ns; });
  if (it == steps_.begin()) return -1;
  --it;
  return t <= it->end_ns ? it->step : -1;
}

void RankMemoryBuilder::add_to_curve(Series& s, int64_t t, int64_t alloc, int64_t reserved) {
  if (!s.started) {
    s.started = true;
    s.t0 = t;
  }
  const int64_t rel = std::max<int64_t>(0, t - s.t0);  // out-of-order rows go to the first bucket
  while (rel / s.width >= static_cast<int64_t>(RankMemory::kCurveBuckets)) {
    std::vector<CurveBucket> merged;
    for (const CurveBucket& b : s.buckets) {
      const int64_t start = s.t0 + (b.start_ns - s.t0) / (2 * s.width) * (2 * s.width);
      if (!merged.empty() && merged.back().start_ns == start) {
        CurveBucket& m = merged.back();
        m.min_allocated = std::min(m.min_allocated, b.min_allocated);
        m.max_allocated = std::max(m.max_allocated, b.max_allocated);
        m.max_reserved = std::max(m.max_reserved, b.max_reserved);
      } else {
        merged.push_back(b);
        merged.back().start_ns = start;
      }
    }
    s.buckets = std::move(merged);
    s.width *= 2;
  }
  const int64_t start = s.t0 + rel / s.width * s.width;
  if (s.buckets.empty() || s.buckets.back().start_ns < start) {
    // Buckets stay sorted: a late row lands in its bucket, found from the end.
    s.buckets.push_back(CurveBucket{start, alloc, alloc, reserved});
    return;
  }
  auto it = std::lower_bound(s.buckets.begin(), s.buckets.end(), start,
                             [](const CurveBucket& b, int64_t v) { return b.start_ns < v; });
  if (it == s.buckets.end() || it->start_ns != start) {
    s.buckets.insert(it, CurveBucket{start, alloc, alloc, reserved});
    return;
  }
  it->min_allocated = std::min(it->min_allocated, alloc);
  it->max_allocated = std::max(it->max_allocated, alloc);
  it->max_reserved = std::max(it->max_reserved, reserved);
}

void RankMemoryBuilder::record(std::string_view component, int64_t t,
                               std::optional<int64_t> allocated, std::optional<int64_t> reserved) {
  if (!plausible_time(t) || (allocated && !plausible_bytes(*allocated)) ||
      (reserved && !plausible_bytes(*reserved)))
    return;
  auto it = series_.find(component);
  if (it == series_.end()) it = series_.emplace(std::string(component), Series{}).first;
  Series& s = it->second;
  ++s.records;
  const int64_t res = reserved.value_or(0);
  if (reserved && res > s.peak_reserved) s.peak_reserved = res;
  if (!allocated) return;
  const int64_t a = *allocated;
  s.has_allocated = true;
  if (a > s.peak_allocated || (a == s.peak_allocated && t < s.peak_time)) {
    s.peak_allocated = a;
    s.peak_time = t;
    s.reserved_at_peak = res;
  }
  const int64_t step = step_of(t);
  if (step >= 0) {
    auto [sit, fresh] = s.steps.try_emplace(step, StepMemory{step, a, a, res});
    if (!fresh) {
      StepMemory& m = sit->second;
      m.peak_allocated = std::max(m.peak_allocated, a);
      m.min_allocated = std::min(m.min_allocated, a);
      m.peak_reserved = std::max(m.peak_reserved, res);
    }
  }
  add_to_curve(s, t, a, res);
}

void RankMemoryBuilder::module(std::string_view name, int64_t, int64_t reserved) {
  auto it = modules_.find(name);
  if (it == modules_.end()) {
    modules_.emplace(std::string(name), reserved);
  } else {
    it->second = std::max(it->second, reserved);
  }
}

bool RankMemoryBuilder::end_records() {
  for (std::string_view name : kSeriesOrder) {
    auto it = series_.find(name);
    if (it != series_.end() && it->second.has_allocated) {
      chosen_ = &it->second;
      out_.series = std::string(name);
      break;
    }
  }
  if (auto app = series_.find(std::string_view("APP")); app != series_.end())
    out_.peak_app_reserved = std::max<int64_t>(0, app->second.peak_reserved);
  for (const auto& [name, s] : series_)
    out_.components.push_back(ComponentPeak{"pool", name, std::max<int64_t>(0, s.peak_reserved)});
  for (const auto& [name, peak] : modules_)
    out_.components.push_back(ComponentPeak{"module", name, peak});
  if (!chosen_) return false;
  out_.peak_allocated = chosen_->peak_allocated;
  out_.peak_reserved = std::max<int64_t>(0, chosen_->peak_reserved);
  out_.peak_time_ns = chosen_->peak_time;
  out_.reserved_at_peak = chosen_->reserved_at_peak;
  out_.peak_step = step_of(chosen_->peak_time);
  out_.records = chosen_->records;
  for (const auto& [step, m] : chosen_->steps) out_.steps.push_back(m);
  out_.curve = chosen_->buckets;
  return true;
}

void RankMemoryBuilder::block(std::string_view op, int64_t bytes, int64_t alloc_ns,
                              std::optional<int64_t> release_ns) {
  if (!plausible_bytes(bytes) || !plausible_time(alloc_ns) ||
      (release_ns && !plausible_time(*release_ns)))
    return;
  ++out_.blocks;
  if (!release_ns) {
    ++out_.never_released;
    out_.never_released_bytes += bytes;
  }
  auto it = ops_.find(op);
  if (it == ops_.end()) it = ops_.emplace(std::string(op), OperatorAlloc{std::string(op)}).first;
  OperatorAlloc& o = it->second;
  ++o.calls;
  o.bytes += bytes;
  o.max_block = std::max(o.max_block, bytes);
  if (!chosen_) return;
  const int64_t t = chosen_->peak_time;
  if (alloc_ns > t || (release_ns && *release_ns <= t)) return;
  // Live at the peak.
  out_.live_bytes_at_peak += bytes;
  auto h = holders_.find(op);
  if (h == holders_.end())
    h = holders_.emplace(std::string(op), HolderBytes{std::string(op)}).first;
  h->second.bytes += bytes;
  ++h->second.blocks;
  if (alloc_ns > last_alloc_before_peak_ ||
      (alloc_ns == last_alloc_before_peak_ && std::string_view(out_.peak_operator) > op)) {
    last_alloc_before_peak_ = alloc_ns;
    out_.peak_operator = std::string(op);
  }
  LiveBlock b{std::string(op), bytes, alloc_ns};
  auto larger = [](const LiveBlock& x, const LiveBlock& y) {
    if (x.bytes != y.bytes) return x.bytes > y.bytes;
    if (x.alloc_ns != y.alloc_ns) return x.alloc_ns < y.alloc_ns;
    return x.op < y.op;
  };
  auto& live = out_.live_at_peak;
  if (live.size() < RankMemory::kLiveBlocks || larger(b, live.back())) {
    live.insert(std::upper_bound(live.begin(), live.end(), b, larger), std::move(b));
    if (live.size() > RankMemory::kLiveBlocks) live.pop_back();
  }
}

RankMemory RankMemoryBuilder::finish() {
  for (auto& [name, h] : holders_) out_.holders.push_back(std::move(h));
  std::stable_sort(out_.holders.begin(), out_.holders.end(),
                   [](const HolderBytes& a, const HolderBytes& b) { return a.bytes > b.bytes; });
  if (out_.holders.size() > RankMemory::kHolders) out_.holders.resize(RankMemory::kHolders);
  for (auto& [name, o] : ops_) out_.operators.push_back(std::move(o));
  std::stable_sort(
      out_.operators.begin(), out_.operators.end(),
      [](const OperatorAlloc& a, const OperatorAlloc& b) { return a.bytes > b.bytes; });
  if (out_.operators.size() > RankMemory::kOperators) out_.operators.resize(RankMemory::kOperators);
  return std::move(out_);
}

}  // namespace cs::memory
