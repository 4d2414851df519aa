#pragma once
// CANN msprof's CommAnalyzerMatrix (communication_analyzer.db, also MindSpore's): one row per
// link of each op INSTANCE, without step, type and op_name. msprof-analyze's
// communication_matrix_sum reshapes these rows (CommMatrixSum._trans_msprof_matrix_data) before
// its reduce, and so does clusterscope (docs/msprof-compat.md, "MindSpore and msprof databases"):
// - step "step"; type "p2p" when the lower-cased op name starts with hcom_send, hcom_receive or
//   hcom_batchsendrecv, else "collective"; op_name the instance name, hccl_op_name its text
//   before the first "__";
// - per (type, step, group_name, hccl_op_name, src_rank, dst_rank), groups sorted by their keys:
//   the group's rows sorted by bandwidth ascending (numpy's quicksort, NaN last) give
//   "<hccl_op_name>-top1" (the SLOWEST, index 0), "-bottom1" (the fastest), "-bottom2" and
//   "-bottom3" (when there are 2 / 3 rows) and "-middle" (index n/2), in that order; a row with
//   any NULL cell is left out (dropna);
// - then per group, in the same order, "<hccl_op_name>-total": the first transport type, the
//   summed size and time, op_name NULL, bandwidth size / time (inf when time is 0).

#include "frame/frame.h"

namespace cs::recipes::communication_matrix_sum {

// True when `matrix` (SELECT * FROM CommAnalyzerMatrix) is msprof's per-instance layout: it has
// neither a step nor an op_name column.
bool is_msprof_matrix(const frame::Frame& matrix);
// The reshaped rows: columns type, step, group_name, hccl_op_name, src_rank, dst_rank, op_name,
// transport_type, transit_size, transit_time, bandwidth.
frame::Frame reshape_msprof_matrix(const frame::Frame& matrix);

}  // namespace cs::recipes::communication_matrix_sum
