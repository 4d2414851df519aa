#pragma once
// The simulated timeline of every rank: kernels, communication ops and step boundaries, made
// causally consistent (a collective ends when its last member arrives plus the transfer time).
// Writers turn a RankTimeline into the per-rank files.

#include <cstdint>
#include <vector>

#include "generator/job/options.h"
#include "generator/job/topology.h"

namespace cs::generator {

enum class CommKind : uint8_t { kAllReduce, kAllGather, kReduceScatter, kSend, kReceive };

// Op name stem as HCCL prints it: "hcom_allReduce_", "hcom_allGather_", "hcom_reduceScatter_",
// "hcom_send_", "hcom_receive_".
const char* comm_op_stem(CommKind k);
// Matrix op type (formats.md §3 leftmost match): "allreduce", "allgather", "reduce", "send",
// "receive".
const char* comm_matrix_type(CommKind k);
inline bool is_p2p(CommKind k) {
  return k == CommKind::kSend || k == CommKind::kReceive;
}

// Data this rank moved over one link during one op: `packets` packets of `packet_mb` each.
struct LinkTransfer {
  int src_local = 0, dst_local = 0;  // local ranks in the op's group ("src-dst" matrix key)
  Transport transport = Transport::kHccs;
  double packet_mb = 0;
  int packets = 0;
  double time_ms = 0;  // total transfer time of all packets
  double size_mb() const { return packet_mb * packets; }
};

struct CommRecord {
  int group = 0;  // index into Topology::groups
  int seq = 0;    // op sequence number in the group (the "2" of hcom_allReduce__844_2_1)
  int step = 0;   // step index, 0-based
  CommKind kind = CommKind::kAllReduce;
  double start_us = 0, end_us = 0;  // relative to SimulationResult::base_us
  double transit_ms = 0, wait_ms = 0, sync_ms = 0, idle_ms = 0;
  std::vector<LinkTransfer> links;  // this rank's transfers, self link ("i-i", LOCAL) included
};

struct KernelEvent {
  double start_us = 0;  // relative to SimulationResult::base_us
  float dur_us = 0;
  float wait_us = 0;
  uint16_t spec = 0;  // index into kernel_catalog()
  uint16_t step = 0;  // step index, 0-based
};

struct StepSpan {
  double start_us = 0, end_us = 0;  // relative; first device activity is found from events
  double data_end_us = 0;           // the host's data loading at the step start ends here
};

// One forward or backward pass of a micro-batch on a rank (its p2p receive included).
struct PassSpan {
  double start_us = 0, end_us = 0;  // relative
  uint16_t step = 0, microbatch = 0;
  bool forward = true;
};

struct RankTimeline {
  std::vector<KernelEvent> kernels;  // in start order
  std::vector<CommRecord> comms;     // in issue order (starts almost sorted; async ops overlap)
  std::vector<StepSpan> steps;
  std::vector<PassSpan> passes;  // in schedule order
};

struct SimulationResult {
  int64_t base_us = 0;              // absolute time (us since the epoch) of relative time 0
  std::vector<RankTimeline> ranks;  // one per global rank
};

// Runs the whole job. All times in the result are microseconds relative to base_us (so they keep
// sub-nanosecond precision). Deterministic for opts.seed.
SimulationResult simulate(const GeneratorOptions& opts, const Topology& topo);

// Nominal link speeds (GB/s) used for "Bandwidth(Utilization)": HCCS 18, RDMA 12.5.
double nominal_bandwidth_gbps(Transport t);

}  // namespace cs::generator
