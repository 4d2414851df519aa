#pragma once
// One rank's host-side summary: per operator (calls, host and device self time, launch delays)
// and per step (the device's Free time split by cause). Small, mergeable across ranks, packed
// losslessly for MPI (unpack(pack(x)) == x), so outputs do not depend on which process read
// which rank.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "host/host_input.h"
#include "io/byte_buffer.h"

namespace cs::host {

// Launch delay histogram bucket upper bounds in µs (the last bucket is open).
inline constexpr std::array<double, 6> kDelayBucketsUs = {10, 50, 100, 500, 1000, 5000};
inline constexpr size_t kDelayBuckets = kDelayBucketsUs.size() + 1;

// One operator name on one rank (or summed over ranks).
struct OpStats {
  std::string name;
  int64_t calls = 0;
  double host_self_us = 0;    // operator time minus its child operators' time
  double host_total_us = 0;   // operator time
  double device_self_us = 0;  // device tasks the operator itself launched
  int64_t launches = 0;       // device tasks launched
  double delay_sum_us = 0;    // launch (runtime call start) to device task start
  double delay_max_us = 0;
  std::array<int64_t, kDelayBuckets> delay_hist{};
  int64_t ranks = 1;  // ranks holding this operator (after merging)
};

// The Free time of one step and its causes; the causes and `unattributed_us` add up to free_us.
struct StepFree {
  int64_t step = -1;  // -1: the rank has no step ranges
  double free_us = 0;
  double step_us = 0;  // the step's duration on the host timeline, 0 when unknown
  std::array<double, static_cast<size_t>(Cause::kCount)> cause_us{};
  double unattributed_us = 0;
  double data_host_us = 0;  // DataLoader time on the host in the step, Free or not
};

struct HostSummary {
  bool has_timeline = false;    // read from a host timeline (else free is all unattributed)
  std::vector<OpStats> ops;     // sorted by name
  std::vector<StepFree> steps;  // sorted by step
  // MindSpore's device queue (host/data_queue.h): batches seen and how many found it empty.
  int64_t queue_batches = 0;
  int64_t queue_empty = 0;

  bool empty() const { return ops.empty() && steps.empty(); }
};

// The summary of one rank's host input: operators and Free broken down per step.
HostSummary summarize(const HostInput& in);

// Adds `from` into `into` by operator name (sums; max of maxima; ranks counted).
void merge_ops(std::vector<OpStats>& into, const std::vector<OpStats>& from);

void pack_summary(const HostSummary& s, io::ByteWriter& w);
HostSummary unpack_summary(io::ByteReader& r);

}  // namespace cs::host
