#include "msprof_analyze/recipes/slow_rank/slow_rank_scan.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "db/query_plan.h"
#include "msprof_analyze/recipes/table_scan.h"

namespace cs::recipes::slow_rank {

namespace {

// SQLite's plan for the query on the profilers' schema: the nested loops give the row order
// reproduced below. Any other plan: run the SQL.
const std::vector<std::string> kPlan = {
    "SCAN COMMUNICATION_OP", "SEARCH CANN_API USING INTEGER PRIMARY KEY (rowid=?)",
    "SEARCH si_group USING INTEGER PRIMARY KEY (rowid=?)",
    "SEARCH si_op USING INTEGER PRIMARY KEY (rowid=?)", "SCAN RANK_DEVICE_MAP"};

}  // namespace

bool scan_communication_times(const db::Database& db, const std::string& sql, int64_t lo,
                              int64_t hi, frame::Frame& out) {
  if (!db::query_plan_is(db, sql, kPlan)) return false;
  CannStarts cann;
  if (!cann.load(db)) return false;
  std::vector<frame::Cell> ranks;
  if (!scan_rows(db, "SELECT rankId FROM RANK_DEVICE_MAP", [&](const TableScan& s) {
        ranks.push_back(s.cell(0));
        return true;
      }))
    return false;
  // The ops joined to their launch, in rowid order; then their two texts (only those ids are
  // read from STRING_IDS).
  struct Op {
    int64_t group, name;
    frame::Cell start, time;
  };
  std::vector<Op> ops;
  std::vector<int64_t> wanted;
  const std::string sql_ops =
      "SELECT opName, startNs, endNs, connectionId, groupName FROM COMMUNICATION_OP";
  if (!scan_rows(db, sql_ops, [&](const TableScan& s) {
        for (int c : {0, 1, 2, 3, 4})
          if (!s.is_int_or_null(c)) return false;
        if (!s.is_int(0) || !s.is_int(3) || !s.is_int(4)) return true;  // NULL keys join nothing
        if (!cann.in_range(s.integer(3), lo, hi)) return true;
        frame::Cell t;  // (endNs - startNs) / 1000.0; NULL when either is NULL
        if (s.is_int(1) && s.is_int(2)) {
          int64_t d = 0;
          if (__builtin_sub_overflow(s.integer(2), s.integer(1), &d)) return false;
          t = frame::Cell::real(static_cast<double>(d) / 1000.0);
        }
        ops.push_back({s.integer(4), s.integer(0), s.cell(1), t});
        wanted.push_back(s.integer(4));
        wanted.push_back(s.integer(0));
        return true;
      }))
    return false;
  StringCells strings;
  if (!strings.load_ids(db, std::move(wanted))) return false;
  frame::Frame f;
  auto& rank = f.add("rankId");
  auto& group = f.add("groupName");
  auto& op = f.add("opName");
  auto& start = f.add("startNs");
  auto& time = f.add("communication_time");
  for (const Op& o : ops) {
    const frame::Cell* g = strings.lookup(o.group);
    const frame::Cell* n = strings.lookup(o.name);
    if (!g || !n) continue;
    for (const frame::Cell& r : ranks) {
      rank.push_back(r);
      group.push_back(*g);
      op.push_back(*n);
      start.push_back(o.start);
      time.push_back(o.time);
    }
  }
  out = std::move(f);
  return true;
}

}  // namespace cs::recipes::slow_rank
