#include "msprof_analyze/recipes/p2p_pairing/p2p_scan.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "db/query_plan.h"
#include "msprof_analyze/recipes/table_scan.h"

namespace cs::recipes::p2p_pairing {

namespace {

// SQLite's plan for the query on the profilers' schema: the nested loops give the row order
// reproduced below (every lookup by a primary key, at most one match). Any other plan: the SQL.
const std::vector<std::string> kPlan = {"SCAN cti",
                                        "SEARCH co USING INTEGER PRIMARY KEY (rowid=?)",
                                        "SEARCH CANN_API USING INTEGER PRIMARY KEY (rowid=?)",
                                        "SEARCH op_name USING INTEGER PRIMARY KEY (rowid=?)",
                                        "SEARCH task_type USING INTEGER PRIMARY KEY (rowid=?)",
                                        "SEARCH cti_group USING INTEGER PRIMARY KEY (rowid=?)",
                                        "SEARCH co_group USING INTEGER PRIMARY KEY (rowid=?)",
                                        "SCAN rdm"};

// A COMMUNICATION_OP row: its keys (NULL: has_* false) and its start as stored.
struct Op {
  bool has_name, has_group, has_conn;
  int64_t name, group, conn;
  frame::Cell start;
};

// A joined task row before its texts are looked up.
struct Row {
  const Op* op;
  int64_t task_type, task_group;
  frame::Cell src, dst;
};

}  // namespace

bool scan_p2p_tasks(const db::Database& db, const std::string& sql, int64_t lo, int64_t hi,
                    frame::Frame& out) {
  if (!db::query_plan_is(db, sql, kPlan)) return false;
  // COMMUNICATION_OP by opId (its INTEGER PRIMARY KEY: unique, never NULL) and CANN_API's starts.
  std::vector<std::pair<int64_t, Op>> ops;
  const std::string sql_ops =
      "SELECT opId, opName, groupName, connectionId, startNs FROM COMMUNICATION_OP";
  if (!scan_rows(db, sql_ops, [&](const TableScan& s) {
        if (!s.is_int(0)) return false;
        for (int c : {1, 2, 3})
          if (!s.is_int_or_null(c)) return false;
        ops.push_back({s.integer(0),
                       {s.is_int(1), s.is_int(2), s.is_int(3), s.integer(1), s.integer(2),
                        s.integer(3), s.cell(4)}});
        return true;
      }))
    return false;
  sort_by_key(ops);
  CannStarts cann;
  if (!cann.load(db)) return false;
  size_t rank_rows = 0;
  if (!scan_rows(db, "SELECT rankId FROM RANK_DEVICE_MAP", [&](const TableScan&) {
        ++rank_rows;
        return true;
      }))
    return false;
  // The tasks joined to their op and its launch, in rowid order; the texts they need.
  std::vector<Row> rows;
  std::vector<int64_t> wanted;
  const std::string sql_tasks =
      "SELECT opId, taskType, groupName, srcRank, dstRank FROM COMMUNICATION_TASK_INFO";
  if (!scan_rows(db, sql_tasks, [&](const TableScan& s) {
        for (int c : {0, 1, 2})
          if (!s.is_int_or_null(c)) return false;
        if (!s.is_int(0) || !s.is_int(1) || !s.is_int(2)) return true;  // NULL keys join nothing
        const Op* op = find_key(ops, s.integer(0));
        if (!op || !op->has_name || !op->has_group || !op->has_conn) return true;
        if (!cann.in_range(op->conn, lo, hi)) return true;
        rows.push_back({op, s.integer(1), s.integer(2), s.cell(3), s.cell(4)});
        for (int64_t id : {op->name, op->group, s.integer(1), s.integer(2)}) wanted.push_back(id);
        return true;
      }))
    return false;
  StringCells strings;
  if (!strings.load_ids(db, std::move(wanted))) return false;
  frame::Frame f;
  auto& name_id = f.add("opName");
  auto& name = f.add("value");
  auto& start = f.add("startNs");
  auto& src = f.add("srcRank");
  auto& dst = f.add("dstRank");
  auto& type = f.add("value");
  auto& co_group = f.add("value");
  auto& cti_group = f.add("value");
  for (const Row& r : rows) {
    const frame::Cell* n = strings.lookup(r.op->name);
    const frame::Cell* t = strings.lookup(r.task_type);
    const frame::Cell* tg = strings.lookup(r.task_group);
    const frame::Cell* og = strings.lookup(r.op->group);
    if (!n || !t || !tg || !og) continue;
    for (size_t k = 0; k < rank_rows; ++k) {
      name_id.push_back(frame::Cell::integer(r.op->name));
      name.push_back(*n);
      start.push_back(r.op->start);
      src.push_back(r.src);
      dst.push_back(r.dst);
      type.push_back(*t);
      co_group.push_back(*og);
      cti_group.push_back(*tg);
    }
  }
  out = std::move(f);
  return true;
}

}  // namespace cs::recipes::p2p_pairing
