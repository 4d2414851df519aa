#include "msprof_analyze/recipes/mstx_sum/mstx_marks_scan.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "db/query_plan.h"
#include "msprof_analyze/recipes/table_scan.h"

namespace cs::recipes::mstx_sum {

namespace {

// SQLite's plans on the profilers' schema; the sort after the scan keeps equal starts in the
// order they came (SQLite's sorter merges taking the earlier row first on equal keys), NULL
// starts first.
const std::vector<std::string> kStepPlan = {"SCAN STEP_TIME", "USE TEMP B-TREE FOR ORDER BY"};
const std::vector<std::string> kMarkPlan = {
    "SCAN MSTX_EVENTS", "SEARCH MSG_IDS USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN",
    "USE TEMP B-TREE FOR ORDER BY"};

// Rows' positions stably sorted by start (NULL, has == false, first).
void sort_by_start(std::vector<size_t>& order, const std::vector<bool>& has,
                   const std::vector<int64_t>& start) {
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (has[a] != has[b]) return !has[a];
    return has[a] && start[a] < start[b];
  });
}

}  // namespace

bool scan_step_time(const db::Database& db, const std::string& sql, frame::Frame& out) {
  if (!db::query_plan_is(db, sql, kStepPlan)) return false;
  TableScan s(db, "SELECT id, startNs, endNs FROM STEP_TIME");
  if (!s.ok()) return false;
  std::vector<frame::Cell> id, start_cell, end;
  std::vector<bool> has;
  std::vector<int64_t> start;
  int rc;
  while ((rc = s.next()) == 1) {
    if (!s.is_int_or_null(1)) return false;
    id.push_back(s.cell(0));
    start_cell.push_back(s.cell(1));
    end.push_back(s.cell(2));
    has.push_back(s.is_int(1));
    start.push_back(s.is_int(1) ? s.integer(1) : 0);
  }
  if (rc != 0) return false;
  std::vector<size_t> order(id.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  sort_by_start(order, has, start);
  frame::Frame f;
  auto& id_c = f.add("id");
  auto& start_c = f.add("startNs");
  auto& end_c = f.add("endNs");
  for (size_t i : order) {
    id_c.push_back(id[i]);
    start_c.push_back(start_cell[i]);
    end_c.push_back(end[i]);
  }
  out = std::move(f);
  return true;
}

bool scan_mstx_marks(const db::Database& db, const std::string& sql, int64_t lo, int64_t hi,
                     frame::Frame& out) {
  if (!db::query_plan_is(db, sql, kMarkPlan)) return false;
  int rc;
  struct Mark {
    int64_t start;
    bool has_message;
    int64_t message;
    frame::Cell tid;
  };
  std::vector<Mark> marks;
  {
    TableScan s(db, "SELECT eventType, startNs, message, globalTid FROM MSTX_EVENTS");
    if (!s.ok()) return false;
    while ((rc = s.next()) == 1) {
      for (int c : {0, 1, 2})
        if (!s.is_int_or_null(c)) return false;
      // WHERE eventType = 3 AND startNs in [lo, hi] (NULL: no).
      if (!s.is_int(0) || s.integer(0) != 3 || !s.is_int(1) || s.integer(1) < lo ||
          s.integer(1) > hi)
        continue;
      marks.push_back({s.integer(1), s.is_int(2), s.integer(2), s.cell(3)});
    }
    if (rc != 0) return false;
  }
  StringCells messages;  // the STRING_IDS values the marks name
  {
    std::vector<int64_t> ids;
    for (const Mark& m : marks)
      if (m.has_message) ids.push_back(m.message);
    std::sort(ids.begin(), ids.end());
    if (!messages.load(db, &ids)) return false;
  }
  std::vector<size_t> order(marks.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return marks[a].start < marks[b].start; });
  frame::Frame f;
  auto& msg = f.add("msg");
  auto& ts = f.add("cann_ts");
  auto& tid = f.add("tid");
  for (size_t i : order) {
    const Mark& m = marks[i];
    const frame::Cell text = m.has_message ? messages.find(m.message) : frame::Cell::null();
    msg.push_back(text);
    ts.push_back(frame::Cell::integer(m.start));
    tid.push_back(m.tid);
  }
  out = std::move(f);
  return true;
}

}  // namespace cs::recipes::mstx_sum
