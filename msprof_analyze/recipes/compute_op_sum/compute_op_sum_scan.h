#pragma once
// compute_op_sum's per-rank query (msprof-analyze's compute-op export: TASK walked through
// TaskIndex over a start range, COMPUTE_TASK_INFO and four STRING_IDS found by primary key)
// answered by one plain scan per table plus C++: TASK read in rowid order and sorted into
// TaskIndex's order instead of a table seek per index entry. It gives exactly the query's rows
// in its order or returns false, and the caller runs the SQL (which also reports any error). The
// rules are in docs/formats.md ("compute_op_sum: the scan").

#include <cstdint>
#include <string>

#include "frame/frame.h"

#include "db/database.h"

namespace cs::recipes::compute_op_sum {

// The rows of `sql` (compute_op_sum's query, its start range [lo, hi] bound) as columns
// OpName, OpType, TaskType, InputShapes, Duration. Used only for the SQLite plan it reproduces
// with TaskIndex on (startNs, globalTaskId); false (run the SQL) for any other plan, a TASK
// start, end or task id or a COMPUTE_TASK_INFO string id that is neither an integer nor NULL, a
// duration of 2^52 ns or more, or a failed read.
bool scan_compute_ops(const db::Database& db, const std::string& sql, int64_t lo, int64_t hi,
                      frame::Frame& out);

}  // namespace cs::recipes::compute_op_sum
