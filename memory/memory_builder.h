#pragma once
// Builds a RankMemory from a rank's rows in two streaming passes (readers feed it; no row kept):
//   1. pool totals: record() per memory_record row (or MEMORY_RECORD / NPU_MEM row), module()
//      per npu_module_mem row; then end_records() picks the operators' series and its peak;
//   2. blocks: block() per operator_memory row (OP_MEMORY), which needs the peak's time;
//   finish() returns the summary.
// Memory: a few accumulators per component, per step and per operator name.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memory/rank_memory.h"

namespace cs::memory {

// Amounts beyond 1 PiB and times outside [0, 2^62) ns are no real profile's (damaged or crafted
// input): the builder ignores rows carrying them, which keeps every sum within int64.
inline bool plausible_bytes(int64_t b) {
  return b > -(int64_t{1} << 50) && b < (int64_t{1} << 50);
}
// 2^62 ns, 146 years: two times below it add or subtract within int64.
inline constexpr int64_t kTimeLimitNs = int64_t{1} << 62;
inline bool plausible_time(int64_t t) {
  return t >= 0 && t < kTimeLimitNs;
}

class RankMemoryBuilder {
 public:
  // `steps`: the rank's step ranges (may be empty: no per-step figures).
  explicit RankMemoryBuilder(std::vector<StepRange> steps);

  // One pool-totals row of `component` ("PTA", "GE", "PTA+GE", "APP", ...); nullopt: the cell
  // was empty (APP rows have no allocated value).
  void record(std::string_view component, int64_t t_ns, std::optional<int64_t> allocated,
              std::optional<int64_t> reserved);
  // One CANN module's reserved memory at t_ns.
  void module(std::string_view name, int64_t t_ns, int64_t reserved);
  // Ends pass 1: chooses the operators' series. False when no component carries allocations.
  bool end_records();
  // Pass 2: one block; release_ns nullopt when it was never released.
  void block(std::string_view op, int64_t bytes, int64_t alloc_ns,
             std::optional<int64_t> release_ns);
  void set_capacity(int64_t bytes) { out_.capacity = bytes; }
  RankMemory finish();

 private:
  struct Series {
    int64_t peak_allocated = -1, peak_time = 0, reserved_at_peak = 0;
    int64_t peak_reserved = -1;
    int64_t records = 0;
    bool has_allocated = false;
    std::map<int64_t, StepMemory> steps;
    // The curve: fixed-width buckets from the first timestamp, width doubled (pairs merged)
    // whenever the next one would pass kCurveBuckets.
    int64_t t0 = 0, width = 1'000'000;
    bool started = false;
    std::vector<CurveBucket> buckets;
  };
  void add_to_curve(Series& s, int64_t t, int64_t alloc, int64_t reserved);
  int64_t step_of(int64_t t_ns) const;

  std::vector<StepRange> steps_;
  std::map<std::string, Series, std::less<>> series_;
  std::map<std::string, int64_t, std::less<>> modules_;
  const Series* chosen_ = nullptr;
  std::map<std::string, OperatorAlloc, std::less<>> ops_;
  std::map<std::string, HolderBytes, std::less<>> holders_;
  int64_t last_alloc_before_peak_ = -1;
  RankMemory out_;
};

}  // namespace cs::memory
