#include "msprof_analyze/recipes/compute_op_sum/compute_op_sum_scan.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "msprof_analyze/recipes/table_scan.h"

namespace cs::recipes::compute_op_sum {

namespace {

// SQLite's plan for the query on the profilers' schema: TASK walked through TaskIndex over the
// start range (so its rows come in (startNs, globalTaskId, rowid) order), every join keyed by a
// primary key (at most one match each). Anything else: run the SQL.
const std::vector<std::string> kPlan = {
    "SEARCH TASK USING INDEX TaskIndex (startNs>? AND startNs<?)",
    "SEARCH COMPUTE_TASK_INFO USING INTEGER PRIMARY KEY (rowid=?)",
    "SEARCH NAME_IDS USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN",
    "SEARCH OPTYPE_IDS USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN",
    "SEARCH TASKTYPE_IDS USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN",
    "SEARCH INPUTSHAPES_IDS USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN"};

// round() leaves an integral double below 2^52 as it is; above, adding 0.5 may round up.
constexpr int64_t kExactRound = int64_t{1} << 52;

bool int_or_null(const TableScan& s, int c) {
  return s.is_int_or_null(c);
}

// A TASK row of the result: its TaskIndex key and what the output takes from it.
struct OpRow {
  int64_t start, task_id, rowid;
  size_t op;  // its COMPUTE_TASK_INFO row
  frame::Cell duration;
};

}  // namespace

bool scan_compute_ops(const db::Database& db, const std::string& sql, int64_t lo, int64_t hi,
                      frame::Frame& out) {
  if (!db::query_plan_is(db, sql, kPlan, db::task_index_is_start_then_task_id)) return false;
  int rc;
  StringCells strings;  // STRING_IDS by id (its primary key)
  if (!strings.load(db)) return false;
  auto text_of = [&](const TableScan& s, int c) {
    return s.is_int(c) ? strings.find(s.integer(c)) : frame::Cell::null();
  };
  // COMPUTE_TASK_INFO by globalTaskId (its primary key): name, opType, taskType, inputShapes.
  std::vector<std::pair<int64_t, std::array<frame::Cell, 4>>> ops;
  {
    TableScan s(db,
                "SELECT globalTaskId, name, opType, taskType, inputShapes FROM COMPUTE_TASK_INFO");
    if (!s.ok()) return false;
    while ((rc = s.next()) == 1) {
      if (!s.is_int(0)) return false;
      for (int c = 1; c <= 4; ++c)
        if (!int_or_null(s, c)) return false;
      ops.push_back({s.integer(0), {text_of(s, 1), text_of(s, 2), text_of(s, 3), text_of(s, 4)}});
    }
    if (rc != 0) return false;
    std::sort(ops.begin(), ops.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  std::vector<OpRow> rows;
  {
    TableScan s(db, "SELECT startNs, endNs, globalTaskId, rowid FROM TASK");
    if (!s.ok()) return false;
    while ((rc = s.next()) == 1) {
      if (!int_or_null(s, 0) || !int_or_null(s, 1) || !int_or_null(s, 2)) return false;
      if (!s.is_int(0) || !s.is_int(2)) continue;  // NULL starts and task ids join nothing
      const int64_t start = s.integer(0), task_id = s.integer(2);
      if (start < lo || start > hi) continue;
      auto op = std::lower_bound(ops.begin(), ops.end(), task_id,
                                 [](const auto& p, int64_t k) { return p.first < k; });
      if (op == ops.end() || op->first != task_id) continue;
      frame::Cell duration;  // round(endNs - startNs): a real, NULL when endNs is
      if (s.is_int(1)) {
        int64_t d = 0;
        if (__builtin_sub_overflow(s.integer(1), start, &d) || d >= kExactRound ||
            d <= -kExactRound)
          return false;
        duration = frame::Cell::real(static_cast<double>(d));
      }
      rows.push_back(
          {start, task_id, s.integer(3), static_cast<size_t>(op - ops.begin()), duration});
    }
    if (rc != 0) return false;
  }
  std::sort(rows.begin(), rows.end(), [](const OpRow& a, const OpRow& b) {
    if (a.start != b.start) return a.start < b.start;
    if (a.task_id != b.task_id) return a.task_id < b.task_id;
    return a.rowid < b.rowid;
  });
  frame::Frame f;
  std::array<frame::FrameColumn*, 4> text = {&f.add("OpName"), &f.add("OpType"), &f.add("TaskType"),
                                             &f.add("InputShapes")};
  auto& duration = f.add("Duration");
  for (auto* c : text) c->cells.reserve(rows.size());
  duration.cells.reserve(rows.size());
  for (const OpRow& r : rows) {
    for (size_t c = 0; c < 4; ++c) text[c]->push_back(ops[r.op].second[c]);
    duration.push_back(r.duration);
  }
  out = std::move(f);
  return true;
}

}  // namespace cs::recipes::compute_op_sum
