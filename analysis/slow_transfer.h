#pragma once
// Slow transfers per op class (msprof-analyze's slow_link recipe, formats.md §7; the
// "slow_transfers" table: op_type,size_mb,group_size,step,op,transfer_ms,expected_ms,ratio,
// evidence).
//
// Input: every rank's communication.json collective ops. Method:
//  1. An op instance is (step, op name with its group hash); its transfer time is the MINIMUM
//     over the ranks that report it of their Elapse Time (Transit Time when no elapse): the rank
//     that arrived last waited least, so the minimum is the pure transfer and a late (slow) rank
//     does not make the transfer look slow. Its data size is the largest per-rank transit size
//     (all transports but the SDMA sum and LOCAL). Point-to-point ops and instances seen on one
//     rank only are skipped: with no peer the minimum still contains the wait.
//  2. Instances are classed by (op type, data size to 3 significant digits, group size); the
//     class's expected time is the median of its instances.
//  3. An instance is slow when its robust z (median/MAD) within its class is at least
//     z_threshold and its time is at least min_ratio times the expected one.
// Attribution: the evidence names a slow link (from the matrix analysis, analysis/slow_link.h)
// only when both its ends are ranks of the op's group; otherwise it says that no link of the
// group stands out in the matrix. A slow transfer never names a slow rank.
// The ranks are read a batch of communication groups at a time (analysis/group_batches.h): an
// instance is kept as its class, time and place only (24 bytes), and the slow ones' names and
// ranks are read again at the end.
//
//   auto links = find_slow_links(link_observations(merge_matrix_links(ranks, groups, diag)));
//   auto slow = find_slow_transfers(ranks, links);
//   io::Table t = slow_transfers_table(slow);

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/slow_link.h"
#include "io/table.h"
#include "load/rank_data.h"

namespace cs::analysis {

struct SlowTransferOptions {
  double z_threshold = 3.5;  // robust z of the transfer time within its class
  double min_ratio = 1.3;    // transfer time / class median, at least
  size_t min_class_ops = 5;  // classes with fewer instances are not judged
  double min_size_mb = 0.1;  // ops moving less are not judged (latency, not bandwidth)
  // Op reports per batch of communication groups read at a time (analysis/group_batches.h; no
  // effect on the findings).
  size_t batch_reports = 1 << 13;
  // Threads reading the ranks, a window of `window_ranks` ranks at a time (their reports added in
  // rank order: no effect on the findings).
  int threads = 1;
  size_t window_ranks = 256;
};

struct SlowTransferFinding {
  std::string op_type;  // lower-cased: "allreduce", "allgather", "reducescatter", ...
  double size_mb = 0;   // data size (3 significant digits, the class key)
  int group_size = 0;   // ranks reporting the op
  std::string step;     // "step1"
  std::string op;       // op name with group: "hcom_allReduce__844_2_1@1368..."
  double transfer_ms = 0;
  double expected_ms = 0;                  // median of the class
  double ratio = 0;                        // transfer / expected
  double z = 0;                            // robust z within the class
  int class_ops = 0;                       // instances in the class
  std::vector<int> ranks;                  // the group's ranks, ascending
  std::vector<std::pair<int, int>> links;  // slow links (src, dst) inside the group
  std::string evidence;
};

// The op type of a communication op name, lower-cased: the word after "hcom_" / "hccl_" up to the
// next '_' ("hcom_allReduce__844_2_1" -> "allreduce", "HcclAllReduce" -> "hcclallreduce").
std::string comm_op_type(std::string_view op_name);

// Slow op instances, largest ratio first (ties: step, op). `ranks` sorted by rank; slow_links
// from find_slow_links() (used for attribution only, may be empty).
// `unjudged` (optional) receives the number of op instances left unjudged for too little data
// (under min_size_mb, or in a class of fewer than min_class_ops instances).
std::vector<SlowTransferFinding> find_slow_transfers(const std::vector<load::RankData>& ranks,
                                                     const std::vector<SlowLinkFinding>& slow_links,
                                                     const SlowTransferOptions& opts = {},
                                                     size_t* unjudged = nullptr);

// The "slow_transfers" table.
io::Table slow_transfers_table(const std::vector<SlowTransferFinding>& findings);

}  // namespace cs::analysis
