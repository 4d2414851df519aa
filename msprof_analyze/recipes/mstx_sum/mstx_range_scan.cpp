#include "msprof_analyze/recipes/mstx_sum/mstx_range_scan.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "msprof_analyze/recipes/table_scan.h"

namespace cs::recipes::mstx_sum {

namespace {

// SQLite's plan for the query on the profilers' schema: MSTX_EVENTS in rowid order; its TASK
// matches through an automatic covering index, whose keys are connectionId, then the other TASK
// columns the query reads in table order (startNs, endNs), then rowid, so the matches of one
// event come in (startNs, endNs, rowid) order, NULLs first; the message by primary key; then the
// rows sorted by start, equal starts kept in the order they came (SQLite's sorter merges taking
// the earlier row first on equal keys). Anything else: run the SQL.
const std::vector<std::string> kPlan = {
    "SCAN MSTX_EVENTS", "SEARCH TASK USING AUTOMATIC COVERING INDEX (connectionId=?) LEFT-JOIN",
    "SEARCH MSG_IDS USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN", "USE TEMP B-TREE FOR ORDER BY"};

// The range events' connectionId that ties no device task.
constexpr int64_t kNoTask = 4294967295;

// A TASK row matching some range: its index key and the values the output takes.
struct TaskMatch {
  int64_t conn;
  bool has_start, has_end;
  int64_t start, end, rowid;
};

bool null_first_less(bool has_a, int64_t a, bool has_b, int64_t b) {
  if (has_a != has_b) return !has_a;
  return has_a && a < b;
}

bool index_before(const TaskMatch& a, const TaskMatch& b) {
  if (a.conn != b.conn) return a.conn < b.conn;
  if (null_first_less(a.has_start, a.start, b.has_start, b.start)) return true;
  if (null_first_less(b.has_start, b.start, a.has_start, a.start)) return false;
  if (null_first_less(a.has_end, a.end, b.has_end, b.end)) return true;
  if (null_first_less(b.has_end, b.end, a.has_end, a.end)) return false;
  return a.rowid < b.rowid;
}

// A range event in rowid order.
struct Range {
  int64_t start, conn;
  bool has_message;
  int64_t message;
  frame::Cell end, tid;
};

}  // namespace

bool scan_mstx_ranges(const db::Database& db, const std::string& sql, int64_t lo, int64_t hi,
                      frame::Frame& out) {
  if (!db::query_plan_is(db, sql, kPlan)) return false;
  int rc;
  std::vector<Range> ranges;
  {
    TableScan s(db,
                "SELECT eventType, startNs, connectionId, message, endNs, globalTid FROM "
                "MSTX_EVENTS");
    if (!s.ok()) return false;
    while ((rc = s.next()) == 1) {
      for (int c : {0, 1, 2, 3})
        if (!s.is_int_or_null(c)) return false;
      // WHERE eventType = 2 AND startNs in [lo, hi] AND connectionId != 4294967295 (NULL: no).
      if (!s.is_int(0) || s.integer(0) != 2 || !s.is_int(1) || s.integer(1) < lo ||
          s.integer(1) > hi || !s.is_int(2) || s.integer(2) == kNoTask)
        continue;
      ranges.push_back(
          {s.integer(1), s.integer(2), s.is_int(3), s.integer(3), s.cell(4), s.cell(5)});
    }
    if (rc != 0) return false;
  }
  std::vector<int64_t> wanted;  // the connectionIds the ranges look up
  for (const Range& r : ranges) wanted.push_back(r.conn);
  std::sort(wanted.begin(), wanted.end());
  std::vector<TaskMatch> tasks;
  {
    TableScan s(db, "SELECT connectionId, startNs, endNs, rowid FROM TASK");
    if (!s.ok()) return false;
    while ((rc = s.next()) == 1) {
      if (!s.is_int_or_null(0) || !s.is_int_or_null(1) || !s.is_int_or_null(2)) return false;
      if (!s.is_int(0) || !std::binary_search(wanted.begin(), wanted.end(), s.integer(0))) continue;
      tasks.push_back(
          {s.integer(0), s.is_int(1), s.is_int(2), s.integer(1), s.integer(2), s.integer(3)});
    }
    if (rc != 0) return false;
    std::sort(tasks.begin(), tasks.end(), index_before);
  }
  StringCells messages;  // the STRING_IDS values the ranges name
  {
    std::vector<int64_t> ids;
    for (const Range& r : ranges)
      if (r.has_message) ids.push_back(r.message);
    std::sort(ids.begin(), ids.end());
    if (!messages.load(db, &ids)) return false;
  }
  // The joined rows in the nested loops' order, then stably sorted by start.
  struct Row {
    size_t range;
    const TaskMatch* task;  // null: no match
  };
  std::vector<Row> rows;
  for (size_t i = 0; i < ranges.size(); ++i) {
    auto m = std::lower_bound(tasks.begin(), tasks.end(), ranges[i].conn,
                              [](const TaskMatch& t, int64_t k) { return t.conn < k; });
    if (m == tasks.end() || m->conn != ranges[i].conn) rows.push_back({i, nullptr});
    for (; m != tasks.end() && m->conn == ranges[i].conn; ++m) rows.push_back({i, &*m});
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    return ranges[a.range].start < ranges[b.range].start;
  });
  frame::Frame f;
  auto& msg = f.add("msg");
  auto& cann_start = f.add("cann_start_ts");
  auto& cann_end = f.add("cann_end_ts");
  auto& device_start = f.add("device_start_ts");
  auto& device_end = f.add("device_end_ts");
  auto& tid = f.add("tid");
  for (const Row& row : rows) {
    const Range& r = ranges[row.range];
    const frame::Cell text = r.has_message ? messages.find(r.message) : frame::Cell::null();
    msg.push_back(text);
    cann_start.push_back(frame::Cell::integer(r.start));
    cann_end.push_back(r.end);
    const TaskMatch* t = row.task;
    device_start.push_back(t && t->has_start ? frame::Cell::integer(t->start)
                                             : frame::Cell::null());
    device_end.push_back(t && t->has_end ? frame::Cell::integer(t->end) : frame::Cell::null());
    tid.push_back(r.tid);
  }
  out = std::move(f);
  return true;
}

}  // namespace cs::recipes::mstx_sum
