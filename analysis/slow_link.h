#pragma once
// Slow-link detection (the "slow_links" table:
// src_rank,dst_rank,transport,bandwidth_gbps,expected_gbps,ratio,evidence).
//
// Input: one LinkObservation per (step, group, op, src, dst) transfer with GLOBAL ranks and the
// link's transit size and time (never elapse: a late rank makes its peers' ops long, not its
// links' transfers slow); step and group are not needed, so not held. Method:
//  1. Observations are classed by (transport, op type, packet size rounded to a power of 2); the
//     class's expected bandwidth is the median over all its observations.
//  2. A link's ratio = sum of expected times / sum of actual times over its observations
//     (size-weighted, 1 = as fast as its peers), bandwidth = its total size / total time.
//  3. A link is slow when its ratio is at most max_ratio and its robust z among links of the
//     same transport is at most -z_threshold. expected_gbps = bandwidth / ratio; the evidence
//     also compares with the nominal speed (RDMA 12.5 or 25, HCCS 18 or 28, PCIE 20 GB/s; the
//     newer speeds when some link of that transport exceeds the older nominal).
// Links carried in both directions are reported once per direction observed.

#include <string>
#include <string_view>
#include <vector>

#include "io/comm_keys.h"
#include "io/table.h"

namespace cs::analysis {

// The names are views: the caller keeps the text alive while find_slow_links runs (GlobalLinks
// does, see link_observations.h). 56 bytes: a 1,024-rank job has ~700k observations.
struct LinkObservation {
  std::string_view op_key;  // "allreduce-total@<group>", or an op name
  int src_rank = -1;        // global ranks
  int dst_rank = -1;
  std::string_view transport;  // HCCS, RDMA, PCIE, SIO, LOCAL, ...
  double size_mb = 0;
  double time_ms = 0;
};

struct SlowLinkOptions {
  double max_ratio = 0.85;   // at most this share of the expected bandwidth
  double z_threshold = 3.5;  // robust z among links of the same transport
  double min_size_mb = 0;    // ignore observations smaller than this
  // A link is judged only on enough data: at least min_total_mb in all, and either min_transfers
  // transfers or min_bulk_mb in all (a 0 MB handshake or one small transfer is latency, not
  // bandwidth; data-simplified matrices hold one large "-total" transfer per step).
  int min_transfers = 3;
  double min_total_mb = 1.0;
  double min_bulk_mb = 16.0;
};

struct SlowLinkFinding {
  int src_rank = -1, dst_rank = -1;
  std::string transport;
  double bandwidth_gbps = 0;
  double expected_gbps = 0;
  double ratio = 0;         // bandwidth / expected
  double z = 0;             // robust z of the ratio among links of the same transport
  double nominal_gbps = 0;  // 0 when unknown
  int observations = 0;
  double size_mb = 0, time_ms = 0;
  std::string evidence;
};

// Nominal link speed in GB/s for a transport ("RDMA", "HCCS", "PCIE"), newer chip generation or
// older; 0 for others. nominal_gbps("HCCS", false) -> 18.
double nominal_gbps(std::string_view transport, bool newer);

// Matrix op keys that duplicate others ("-top1", "-middle", "-bottomN", "Total Op Info"): the
// one predicate of io/comm_keys.h (use the "-total" keys or plain op names).
using io::is_derived_matrix_key;

// Slow links, slowest (lowest ratio) first. Derived keys, LOCAL and self links, and observations
// with no size or time are ignored.
// `unjudged` (optional) receives the number of links left unjudged for too little data;
// `overflowed` (optional) the number left unjudged because a sum of their sizes or times is not
// finite (beyond 1.8e308: the bandwidth is unknown).
// The same over a compact LinkObservationSet: link_observations.h.
std::vector<SlowLinkFinding> find_slow_links(const std::vector<LinkObservation>& obs,
                                             const SlowLinkOptions& opts = {},
                                             int* unjudged = nullptr, int* overflowed = nullptr);

// The "slow_links" table.
io::Table slow_links_table(const std::vector<SlowLinkFinding>& findings);

}  // namespace cs::analysis
