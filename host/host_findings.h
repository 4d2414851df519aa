#pragma once
// What the host side says about a job, from its ranks' summaries:
//  - host-bound: the device waits for dispatch (Free the host was still launching into) at least
//    `host_bound_share` of the mean step. When the median rank with a host timeline is, and none
//    is below half of it, that is one job finding naming the host-heaviest operators that launch
//    device work (steps counted over the ranks); otherwise the
//    ranks that are, and whose share is also `outlier_ratio` times the job's median share, are
//    host-bound ranks (analysis/ reports them as slow ranks with cause "host").
//  - data-loading and run-time compile stalls: Free covered by DataLoader ranges or by
//    aclopCompileAndExecute, at least `stall_ms` per step, said with their cost in ms per step
//    (for the whole job when every rank has it, else per rank).
//  - MindSpore's data pipeline: the device queue empty in more than 30% of a rank's steps
//    (host/data_queue.h, MindInsight's rule) -> the data pipeline is the bottleneck there.
// A clean job says nothing. Ranks without a host timeline are counted for one note.

#include <string>
#include <vector>

#include "host/host_tables.h"

namespace cs::host {

struct HostFindingOptions {
  double host_bound_share = 0.2;  // dispatch / step
  double outlier_ratio = 2.0;     // a rank's dispatch share against the job's median
  double stall_ms = 1.0;          // data / compile per step
  size_t top_ops = 3;             // operators named in the host-bound job finding
};

// One rank's means per step (over its steps with a known duration).
struct RankHostMeans {
  int rank = -1;
  int steps = 0;
  double step_ms = 0, free_ms = 0, dispatch_ms = 0, data_ms = 0, compile_ms = 0;
  double data_host_ms = 0;  // DataLoader time on the host, Free or not
  double dispatch_share() const { return step_ms > 0 ? dispatch_ms / step_ms : 0; }
};

struct HostFindings {
  bool job_host_bound = false;
  std::vector<RankHostMeans> host_bound_ranks;  // when the job as a whole is not host-bound
  std::vector<std::string> lines;               // sentences for the closing summary
  int ranks_without_timeline = 0;
};

RankHostMeans rank_means(int rank, const HostSummary& s);

// Walks `ranks` once, and once more for the host-bound job's operators (host_tables.h: the
// summaries may be read back from disk on each walk; none is kept).
HostFindings host_findings(const SummaryWalk& ranks, const HostFindingOptions& opts = {});
// The same from summaries held in memory.
HostFindings host_findings(const std::vector<RankSummary>& ranks,
                           const HostFindingOptions& opts = {});

}  // namespace cs::host
