#pragma once
// export_summary's two per-task queries (msprof-analyze's kernel-details export: every compute
// task of TASK with its COMPUTE_TASK_INFO row and nine or ten texts from STRING_IDS; every
// COMMUNICATION_OP row whose connection's TASK rows ran on one device and model) answered by one
// plain scan per table plus C++, in the order of the SQLite plan they are written from, instead
// of a correlated STRING_IDS lookup per text cell and a grouped, materialised TASK. Each gives
// exactly its query's rows or returns false, and the caller runs the SQL (which also reports any
// error). The rules are in docs/formats.md ("export_summary: the scans").

#include <string>

#include "db/database.h"
#include "frame/frame.h"

namespace cs::recipes::export_summary {

// The rows of `sql` (the compute-task query export_summary.cpp builds, with blockNum/mixBlockNum
// when `block_num` and the opState text when `op_state`), its columns named as the query names
// them. Only for SQLite's plan "TASK scanned in rowid order, COMPUTE_TASK_INFO by its integer
// primary key, each text by STRING_IDS' primary key"; false (run the SQL) for any other plan, a
// join key or string id that is neither an integer nor NULL, a start or end that is neither (so
// the duration is an integer subtraction), a subtraction that overflows, or a failed read.
bool scan_compute_tasks(const db::Database& db, const std::string& sql, bool block_num,
                        bool op_state, frame::Frame& out);

// The rows of `sql` (the communication-op query), for SQLite's plan "TASK grouped by
// connectionId and materialised, COMMUNICATION_OP scanned in rowid order, its group found by an
// automatic index": false for any other plan, for the same kinds of values as above, and for a
// kept group (one device, one model) that also has a NULL device or model (SQLite's bare column
// could then be either).
bool scan_communication_ops(const db::Database& db, const std::string& sql, frame::Frame& out);

}  // namespace cs::recipes::export_summary
