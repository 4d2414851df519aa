#include "msprof_analyze/recipes/hccl_sum/hccl_sum_scan.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "db/query_plan.h"
#include "msprof_analyze/recipes/table_scan.h"

namespace cs::recipes::hccl_sum {

namespace {

// SQLite's plan for the query on the profilers' schema: COMMUNICATION_OP scanned in rowid order,
// each string found by STRING_IDS' primary key (at most one match each).
const std::vector<std::string> kPlan = {
    "SCAN COMMUNICATION_OP", "SEARCH TYPE_IDS USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN",
    "SEARCH NAME_IDS USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN",
    "SEARCH GROUP_NAME_IDS USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN"};

// round() leaves an integral double below 2^52 as it is; above, adding 0.5 may round up.
constexpr int64_t kExactRound = int64_t{1} << 52;

}  // namespace

bool scan_hccl_ops(const db::Database& db, const std::string& sql, int64_t lo, int64_t hi,
                   frame::Frame& out) {
  if (!db::query_plan_is(db, sql, kPlan)) return false;
  int rc;
  StringCells strings;  // STRING_IDS by id (its primary key)
  if (!strings.load(db)) return false;
  auto text_of = [&](const TableScan& s, int c) {
    return s.is_int(c) ? strings.find(s.integer(c)) : frame::Cell::null();
  };
  frame::Frame f;
  auto& name = f.add("OpName");
  auto& type = f.add("OpType");
  auto& duration = f.add("Duration");
  auto& group = f.add("GroupName");
  TableScan s(db, "SELECT startNs, endNs, opType, opName, groupName FROM COMMUNICATION_OP");
  if (!s.ok()) return false;
  while ((rc = s.next()) == 1) {
    for (int c = 0; c < 5; ++c)
      if (!s.is_int_or_null(c)) return false;
    if (!s.is_int(0) || s.integer(0) < lo || s.integer(0) > hi) continue;  // NULL: not in range
    frame::Cell d;  // round(endNs - startNs): a real, NULL when endNs is
    if (s.is_int(1)) {
      int64_t v = 0;
      if (__builtin_sub_overflow(s.integer(1), s.integer(0), &v) || v >= kExactRound ||
          v <= -kExactRound)
        return false;
      d = frame::Cell::real(static_cast<double>(v));
    }
    name.push_back(text_of(s, 3));
    type.push_back(text_of(s, 2));
    duration.push_back(d);
    group.push_back(text_of(s, 4));
  }
  if (rc != 0) return false;
  out = std::move(f);
  return true;
}

}  // namespace cs::recipes::hccl_sum
