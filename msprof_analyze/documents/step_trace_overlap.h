#pragma once
// The whole-run step trace msprof-analyze computes for MindSpore and CANN msprof DB exports
// (MsprofStepTraceTimeDBAdapter): one row per rank, from the profiler database's device
// intervals instead of analysis.db's StepTraceTime. The rule, with its quirks, is in
// docs/msprof-compat.md ("ClusterStepTraceTime for MindSpore and msprof DB exports").

#include <array>
#include <cstdint>
#include <vector>

namespace cs::documents {

// One device interval in nanoseconds, as the profiler database holds it, within +-2^62 ns (the
// readers check it), so that the differences and sums below fit in 64 bits. `receive`: a
// communication op (COMMUNICATION_OP row) whose name starts with "hcom_receive", a pipeline
// receive, counted as bubble.
struct NsInterval {
  int64_t start = 0;
  int64_t end = 0;
  bool receive = false;
};

// The totals in nanoseconds, before the division by 1000.
struct StepTraceTotals {
  int64_t computing = 0;
  int64_t communication_not_overlapped = 0;
  int64_t overlapped = 0;
  int64_t communication = 0;
  int64_t free = 0;
  int64_t stage = 0;
  int64_t bubble = 0;
  int64_t communication_not_overlapped_exclude_receive = 0;
};

// msprof-analyze's merge_continuous_intervals: stable sort by start, then each interval starting
// at or before the current one's end joins it (end = max of the ends). The first interval of each
// group is the one extended, in place: `ranges` is sorted and its group heads get the group's
// end, which is what the caller's later reads of the same intervals see (see receive_bubble).
// Returns the merged intervals: {[0,5], [5,7], [9,10]} -> {[0,7], [9,10]}.
std::vector<NsInterval> merge_continuous(std::vector<NsInterval>& ranges);

// msprof-analyze's compute_pipeline_overlap over merged communication and compute intervals:
// returns the communication not overlapped by computation (*pure, ns) and the gaps between
// intervals (*free, ns). Its walk, kept exactly: both lists sorted together by start (stable,
// communication first on equal starts); a "current" interval, either communication or not,
// is cut against each next one; the part of a communication interval before a covering or
// overlapping one counts as pure, and what remains of the two becomes the new current interval,
// typed by the later one. Example: communication [0,10], compute [4,6] -> pure 4 + 4, free 0.
void pipeline_overlap(const std::vector<NsInterval>& communication,
                      const std::vector<NsInterval>& compute, int64_t* pure, int64_t* free);

// The rank's totals from its compute task intervals (COMPUTE_TASK_INFO joined with TASK) and its
// communication ops, in the order the database returned them (the order decides which of equal
// starts heads a merged group). Bubble is the summed duration of the receive ops after the
// communication merge, whose in-place extension makes a receive op heading a group count up to
// the group's end.
StepTraceTotals whole_run_totals(std::vector<NsInterval> compute,
                                 std::vector<NsInterval> communication);

// The row's values in microseconds in ClusterStepTraceTime's column order: computing,
// communication_not_overlapped, overlapped, communication, free, stage, bubble,
// communication_not_overlapped_and_exclude_receive, preparing (always 0).
std::array<double, 9> totals_in_us(const StepTraceTotals& t);

}  // namespace cs::documents
