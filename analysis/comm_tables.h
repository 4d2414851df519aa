#pragma once
// clusterscope's own communication and step tables (interface.md), built from the same per-rank
// data as the msprof-analyze files. Rows are sorted by step, group, op, rank (steps and ops in
// natural order: "step2" before "step10"), or, for communication_ops and communication_bandwidth,
// by group tuple first (comm_op_tables.h), so the tables do not depend on how ranks were split
// across processes. Missing values are NaN.

#include <string_view>
#include <vector>

#include "io/table.h"
#include "load/rank_data.h"
#include "msprof_analyze/documents/cluster_matrix.h"
#include "msprof_analyze/documents/communication_groups.h"

namespace cs::analysis {

// "step2" < "step10": digit runs compare as numbers, the rest byte-wise.
bool natural_less(std::string_view a, std::string_view b);
// A byte string whose plain (memcmp) order is natural_less's order of the texts: each digit run
// becomes '0', its significant length (4 bytes, big-endian), its significant digits and its
// whole length (4 bytes); other bytes stay. For sorting many texts: each compared as bytes.
std::string natural_key(std::string_view s);

// communication_ops: one row per (step, group, op, rank):
// step, group, op, rank, elapse_ms, transit_ms, wait_ms, sync_ms, idle_ms, wait_ratio,
// sync_ratio, plus type (collective/p2p), group_ranks ("(0, 1)") and start_us.
// group = the group name after '@'; op = the op name before it. Built a batch of group tuples at
// a time (comm_op_tables.h), the ops read packed, spilled or not.
io::Table communication_ops_table(const std::vector<load::RankData>& ranks,
                                  const documents::CommGroups& groups);

// communication_bandwidth: one row per (step, group, rank, transport), summed over the group's
// ops in that step (the Total Op Info numbers): step, group, rank, transport, size_mb, time_ms,
// bandwidth_gbps (size / time unrounded, 0 when time < 1e-15), plus group_ranks.
io::Table communication_bandwidth_table(const std::vector<load::RankData>& ranks,
                                        const documents::CommGroups& groups);

// communication_matrix: one row per merged global link of merge_matrix_links (Total Op Info
// rows included, op = "Total Op Info"): step, group, op, src_rank, dst_rank, transport, size_mb,
// time_ms, bandwidth_gbps, plus op_name. threads > 1: sorted and filled on two threads (same
// table).
io::Table communication_matrix_table(const documents::GlobalLinks& links, int threads = 1);

// step_trace: one row per (step, rank) of step_trace_time.csv: step, rank, computing_us,
// comm_not_overlapped_us, overlapped_us, communication_us, free_us, stage_us, bubble_us,
// preparing_us.
io::Table step_trace_table(const std::vector<load::RankData>& ranks);

}  // namespace cs::analysis
