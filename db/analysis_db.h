#pragma once
// ASCEND_PROFILER_OUTPUT/analysis.db (torch_npu export type db): the same data as the text
// export's communication.json, communication_matrix.json and step_trace_time.csv, as tables
//   StepTraceTime(step, computing, ..., preparing)                       microseconds
//   CommAnalyzerTime(hccl_op_name, group_name, start_timestamp, elapse_time, ..., step, type)
//   CommAnalyzerBandwidth(hccl_op_name, group_name, transport_type, transit_size, transit_time,
//                         bandwidth, large_packet_ratio, package_size, count, total_duration,
//                         step, type)  one row per size bucket of a transport
//   CommAnalyzerMatrix(hccl_op_name, group_name, src_rank, dst_rank, transport_type, transit_size,
//                      transit_time, bandwidth, step, type, op_name)
// read into the structs the text readers fill, so every analysis works on either export.
// Differences kept: the DB has no per-op wait/sync ratios (msprof-analyze writes 0 for them), no
// link utilization or large packet ratio in the matrix; a transport without size buckets is one
// row with package_size, count and total_duration 0.

#include <string>

#include "db/database.h"
#include "io/diagnostics.h"
#include "readers/communication.h"
#include "readers/matrix.h"
#include "readers/step_trace.h"

namespace cs::db {

// Table names, as the producers write them.
inline constexpr const char* kStepTraceTimeTable = "StepTraceTime";
inline constexpr const char* kCommTimeTable = "CommAnalyzerTime";
inline constexpr const char* kCommBandwidthTable = "CommAnalyzerBandwidth";
inline constexpr const char* kCommMatrixTable = "CommAnalyzerMatrix";

// Reads StepTraceTime. Columns are named as step_trace_time.csv names them ("Computing", ...,
// "Preparing"); a NULL or non-numeric cell becomes NaN with one error per table. Returns false
// with one error when the table or its step column is missing or unreadable.
bool read_step_trace_db(const Database& db, readers::StepTraceFile& out, io::Diagnostics& diag);

// Reads CommAnalyzerTime and CommAnalyzerBandwidth into the communication.json structure: op
// names "hccl_op_name@group_name", steps and collective/p2p as in `step` and `type`, row order
// kept. Rows whose numbers are NULL are skipped with one error per table. A bandwidth row whose op
// has no time row still makes an op. Returns false when CommAnalyzerTime is missing or
// unreadable.
bool read_communication_db(const Database& db, readers::CommunicationFile& out,
                           io::Diagnostics& diag);

// Reads CommAnalyzerMatrix into the communication_matrix.json structure: op keys
// "hccl_op_name@group_name", link keys "src-dst". Returns false when the table is missing or
// unreadable.
bool read_matrix_db(const Database& db, readers::MatrixFile& out, io::Diagnostics& diag);

}  // namespace cs::db
