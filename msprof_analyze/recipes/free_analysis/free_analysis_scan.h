#pragma once
// free_analysis's two per-rank queries (msprof-analyze's SQL: window functions over the busy
// intervals, and four LEFT JOINs SQLite answers with automatic indexes it builds for every rank)
// done as one plain scan per table plus C++. Each scan either gives exactly the rows the SQL
// gives, in its order, or returns false and the caller runs the SQL (which also reports any
// error): nothing here writes a diagnostic. The order rules are in docs/formats.md
// ("free_analysis: the scans").

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "frame/frame.h"

#include "db/database.h"

namespace cs::recipes::free_analysis {

// A busy interval in ns.
struct BusyInterval {
  int64_t start = 0;
  int64_t end = 0;
};

// The busy query's grouping on integer rows: sorted by start, a row opens a new group when it is
// the first row or its start is later than the end of every row that starts before it (rows with
// equal starts always share a group: SUM() OVER (ORDER BY startNs) sums the peers together);
// returns each group's (min start, max end) in start order.
std::vector<BusyInterval> merge_busy_intervals(std::vector<BusyInterval> rows);

// The busy query's result read as scans of COMPUTE_TASK_INFO, TASK and COMMUNICATION_OP.
// False (use the SQL) when a start, end or task id is not an integer or a read fails.
bool scan_busy_intervals(const db::Database& db, std::vector<BusyInterval>& out);

// A value as SQLite stored it, outside a frame: PYTORCH_API's times are text, a distinct string
// on every row, which as frame cells would be interned for the rest of the run. Read like a Cell.
// 32 trivially copyable bytes: a text is a pointer to a string kept by the LinkRows the value
// belongs to (or to an interned cell text), so a value is copied to each row without its text.
struct RawValue {
  frame::Cell::Kind kind = frame::Cell::Kind::kNull;
  int64_t int_value = 0;
  double real_value = 0.0;
  const std::string* text = nullptr;  // kText: the value's text
  // The value of cell `c` (a text cell's text is the run's interned copy: no storage needed).
  static RawValue of(const frame::Cell& c);
  int64_t i() const { return kind == frame::Cell::Kind::kInt ? int_value : 0; }
  double num() const {
    return kind == frame::Cell::Kind::kInt ? static_cast<double>(int_value)
                                           : (kind == frame::Cell::Kind::kReal ? real_value : 0.0);
  }
  // The text of a text value; empty for the others.
  const std::string& str() const;
  bool is_null() const { return kind == frame::Cell::Kind::kNull; }
};

// The link query's rows: task_type, task_ts, task_end, cann_ts, cann_end as frame cells, and the
// PyTorch launch's start and end as raw values, row for row (their texts in `texts`, whose
// elements never move: moving a LinkRows keeps the values valid).
struct LinkRows {
  frame::Frame cells;
  std::vector<RawValue> pytorch_ts, pytorch_end;
  std::deque<std::string> texts;
};

// The link query's rows (values typed as SQLite stored them) in the query's order, built from
// scans of TASK, CANN_API, STRING_IDS, CONNECTION_IDS and PYTORCH_API. Used only when SQLite's
// plan for `link_sql` is the one this reproduces (TASK walked through TaskIndex on (startNs,
// globalTaskId), keyed lookups); false (use the SQL) otherwise, or when a TASK start, task id or
// join key is not an integer or NULL, PYTORCH_API repeats a connectionId, or a read fails.
bool scan_link_rows(const db::Database& db, const std::string& link_sql, LinkRows& out);

// Both of free_analysis's per-rank results from one read of TASK (each *_ok false: run that
// query's SQL instead).
struct FreeAnalysisScan {
  bool busy_ok = false;
  std::vector<BusyInterval> busy;  // as scan_busy_intervals
  bool link_ok = false;
  LinkRows link;  // as scan_link_rows
};

// scan_busy_intervals and scan_link_rows (for `link_sql`; none when it is null) at once: TASK is
// read once, in rowid order, and the link rows sorted into TaskIndex's order.
FreeAnalysisScan scan_free_analysis(const db::Database& db, const std::string* link_sql);

}  // namespace cs::recipes::free_analysis
