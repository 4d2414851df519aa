#pragma once
// Communication summaries from every rank's communication.json (Total Op Info entries skipped,
// so nothing is counted twice):
//  - "comm_rank_summary", one row per (group, rank): ops, elapse, transit, wait, sync, idle (ms),
//    wait_ratio = wait / (wait + transit), sync_ratio = sync / (sync + transit) (0 when the
//    divisor is below 1e-15, as CANN computes them).
//  - "comm_transport_summary", one row per (group, rank, transport): size_mb, time_ms,
//    bandwidth_gbps = size / time, nominal_gbps and utilization = bandwidth / nominal (NaN when
//    the transport has no nominal speed, e.g. SIO, SDMA). SDMA is skipped: it is the sum of
//    HCCS, PCIE and SIO.
// Rows are ordered by group (first appearance in rank order), then rank, then transport.
// The newer nominal speeds (RDMA 25, HCCS 28 GB/s) are used for a transport when some rank's
// bandwidth on it exceeds the older nominal (12.5 / 18) by more than 5%.
//
// The tables are built rank by rank and streamed (analysis/comm_summary_stream.h), never held
// whole; this file holds the rules both tables share.

#include "readers/communication.h"

namespace cs::analysis {

// part / (part + transit): wait_ratio and sync_ratio; 0 when the divisor is below 1e-15.
double comm_share(double part, double transit);
// An op's time field in ms; 0 when it is absent or not finite.
double comm_time_ms(const readers::CommOp& op, readers::TimeField f);

}  // namespace cs::analysis
