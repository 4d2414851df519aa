#pragma once
// export_summary's three per-rank queries (msprof-analyze's API statistic: the device time of
// each CANN API, grouped by name; its kernel-details export: every compute task of TASK with its
// COMPUTE_TASK_INFO row and nine or ten texts from STRING_IDS, every COMMUNICATION_OP row whose
// connection's TASK rows ran on one device and model) answered by one
// plain scan per table plus C++, in the order of the SQLite plan they are written from, instead
// of a correlated STRING_IDS lookup per text cell and a grouped, materialised TASK. Each gives
// exactly its query's rows or returns false, and the caller runs the SQL (which also reports any
// error). The rules are in docs/formats.md ("export_summary: the scans").

#include <string>

#include "db/database.h"
#include "frame/frame.h"
#include "msprof_analyze/recipes/table_scan.h"

namespace cs::recipes::export_summary {

// STRING_IDS of one rank, read once for its scans (and not at all when every scan declines
// before it needs it).
class RankStrings {
 public:
  explicit RankStrings(const db::Database& db) : db_(db) {}
  // The table, or nullptr when it cannot be read by a scan.
  const StringCells* get() {
    if (state_ == 0) state_ = cells_.load(db_) ? 1 : -1;
    return state_ == 1 ? &cells_ : nullptr;
  }

 private:
  const db::Database& db_;
  StringCells cells_;
  int state_ = 0;  // 0 not read, 1 read, -1 failed
};

// The rows of `sql` (the API-statistic query: TASK joined to CANN_API by connectionId and the
// name's text, grouped by the text, by total time descending). Only for SQLite's plan "TASK
// scanned, CANN_API and STRING_IDS by primary key, grouped and sorted in temporary b-trees";
// false for any other plan, a key, start or end that is neither an integer nor NULL, a NULL or
// missing name text or one that is not text, a NULL duration, a group whose durations reach 2^53
// in absolute sum (the average would depend on the order SQLite adds them), or two groups of
// equal total (their order would be the sorter's).
bool scan_api_statistic(const db::Database& db, const std::string& sql, RankStrings& strings,
                        frame::Frame& out);

// The rows of `sql` (the compute-task query export_summary.cpp builds, with blockNum/mixBlockNum
// when `block_num` and the opState text when `op_state`), its columns named as the query names
// them. Only for SQLite's plan "TASK scanned in rowid order, COMPUTE_TASK_INFO by its integer
// primary key, each text by STRING_IDS' primary key"; false (run the SQL) for any other plan, a
// join key or string id that is neither an integer nor NULL, a start or end that is neither (so
// the duration is an integer subtraction), a subtraction that overflows, or a failed read.
bool scan_compute_tasks(const db::Database& db, const std::string& sql, bool block_num,
                        bool op_state, RankStrings& strings, frame::Frame& out);

// The rows of `sql` (the communication-op query), for SQLite's plan "TASK grouped by
// connectionId and materialised, COMMUNICATION_OP scanned in rowid order, its group found by an
// automatic index": false for any other plan, for the same kinds of values as above, and for a
// kept group (one device, one model) that also has a NULL device or model (SQLite's bare column
// could then be either).
bool scan_communication_ops(const db::Database& db, const std::string& sql, RankStrings& strings,
                            frame::Frame& out);

}  // namespace cs::recipes::export_summary
