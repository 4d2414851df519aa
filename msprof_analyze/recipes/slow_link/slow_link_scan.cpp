#include "msprof_analyze/recipes/slow_link/slow_link_scan.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "db/query_plan.h"
#include "msprof_analyze/recipes/table_scan.h"

namespace cs::recipes::slow_link {

namespace {

// SQLite's plan for the query on the profilers' schema: one row per op in rowid order, each
// lookup by a primary key (at most one match). Any other plan: the SQL.
const std::vector<std::string> kPlan = {"SCAN co", "SEARCH si USING INTEGER PRIMARY KEY (rowid=?)",
                                        "SEARCH sii USING INTEGER PRIMARY KEY (rowid=?)",
                                        "SEARCH et USING INTEGER PRIMARY KEY (rowid=?)",
                                        "SEARCH op USING INTEGER PRIMARY KEY (rowid=?)"};

// The query's CASE: bytes per element of each data type name.
int64_t element_bytes(std::string_view name) {
  static const std::pair<std::string_view, int64_t> kBytes[] = {
      {"INT8", 1},  {"INT16", 2},  {"INT32", 4},  {"INT64", 8}, {"UINT64", 8},
      {"UINT8", 1}, {"UINT16", 2}, {"UINT32", 4}, {"FP16", 2},  {"FP32", 4},
      {"FP64", 8},  {"BFP16", 2},  {"INT128", 16}};
  for (const auto& [n, b] : kBytes)
    if (n == name) return b;
  return 0;
}

struct Op {
  int64_t group, name, type, data_type;
  frame::Cell time, count;
};

}  // namespace

bool scan_slow_links(const db::Database& db, const std::string& sql, frame::Frame& out) {
  if (!db::query_plan_is(db, sql, kPlan)) return false;
  std::vector<std::pair<int64_t, frame::Cell>> types;  // ENUM_HCCL_DATA_TYPE by id
  if (!scan_rows(db, "SELECT id, name FROM ENUM_HCCL_DATA_TYPE", [&](const TableScan& s) {
        if (!s.is_int(0)) return false;
        types.emplace_back(s.integer(0), s.cell(1));
        return true;
      }))
    return false;
  sort_by_key(types);
  std::vector<Op> ops;
  std::vector<int64_t> wanted;
  const std::string sql_ops =
      "SELECT groupName, opName, dataType, opType, startNs, endNs, count FROM COMMUNICATION_OP";
  if (!scan_rows(db, sql_ops, [&](const TableScan& s) {
        for (int c : {0, 1, 2, 3, 4, 5})
          if (!s.is_int_or_null(c)) return false;
        const int count_type = s.type(6);
        if (count_type != SQLITE_INTEGER && count_type != SQLITE_FLOAT && count_type != SQLITE_NULL)
          return false;
        if (!s.is_int(0) || !s.is_int(1) || !s.is_int(2) || !s.is_int(3)) return true;  // no match
        frame::Cell time;  // endNs - startNs; NULL when either is NULL
        if (s.is_int(4) && s.is_int(5)) {
          int64_t d = 0;
          if (__builtin_sub_overflow(s.integer(5), s.integer(4), &d)) return false;
          time = frame::Cell::integer(d);
        }
        ops.push_back({s.integer(0), s.integer(1), s.integer(3), s.integer(2), time, s.cell(6)});
        for (int c : {0, 1, 3}) wanted.push_back(s.integer(c));
        return true;
      }))
    return false;
  StringCells strings;
  if (!strings.load_ids(db, std::move(wanted))) return false;
  frame::Frame f;
  auto& group = f.add("groupName");
  auto& time = f.add("communicationTime");
  auto& name = f.add("opName");
  auto& type = f.add("opType");
  auto& data_type = f.add("dataType");
  auto& size = f.add("dataSize");
  for (const Op& o : ops) {
    const frame::Cell* g = strings.lookup(o.group);
    const frame::Cell* n = strings.lookup(o.name);
    const frame::Cell* et = find_key(types, o.data_type);
    const frame::Cell* t = strings.lookup(o.type);
    if (!g || !n || !et || !t) continue;
    const frame::Cell& et_name = *et;
    const int64_t bytes =
        et_name.kind == frame::Cell::Kind::kText ? element_bytes(et_name.str()) : 0;
    frame::Cell bytes_moved;  // the CASE: NULL for another name or a NULL count
    if (bytes > 0 && o.count.kind == frame::Cell::Kind::kInt) {
      int64_t v = 0;
      if (__builtin_mul_overflow(bytes, o.count.i(), &v)) return false;
      bytes_moved = frame::Cell::integer(v);
    } else if (bytes > 0 && o.count.kind == frame::Cell::Kind::kReal) {
      bytes_moved = frame::Cell::real(static_cast<double>(bytes) * o.count.num());
    }
    group.push_back(*g);
    time.push_back(o.time);
    name.push_back(*n);
    type.push_back(*t);
    data_type.push_back(et_name);
    size.push_back(bytes_moved);
  }
  out = std::move(f);
  return true;
}

}  // namespace cs::recipes::slow_link
