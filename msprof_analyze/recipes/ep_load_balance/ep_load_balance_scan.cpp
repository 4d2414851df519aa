#include "msprof_analyze/recipes/ep_load_balance/ep_load_balance_scan.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "msprof_analyze/recipes/table_scan.h"

namespace cs::recipes::ep_load_balance {

bool scan_grouped_matmul_shapes(const db::Database& db, int64_t lo, int64_t hi, frame::Frame& out) {
  int rc;
  // (SELECT id FROM STRING_IDS WHERE value = 'GroupedMatmul'): the first such row's id, in rowid
  // order as SQLite scans the table (an index on value would list equal values in rowid order
  // too); none or NULL: no kernel matches.
  std::optional<int64_t> op_type;
  {
    TableScan s(db, "SELECT id, value FROM STRING_IDS");
    if (!s.ok()) return false;
    while ((rc = s.next()) == 1)
      if (s.type(1) == SQLITE_TEXT && s.text_view(1) == "GroupedMatmul") {
        if (!s.is_int_or_null(0)) return false;
        if (s.is_int(0)) op_type = s.integer(0);
        break;
      }
    if (rc < 0) return false;
  }
  frame::Frame f;
  auto& shapes = f.add("value");
  if (!op_type) {
    out = std::move(f);
    return true;
  }
  // The GroupedMatmul kernels: (globalTaskId, inputShapes id; has_shape false for NULL).
  struct Kernel {
    int64_t task;
    bool has_shape;
    int64_t shape;
  };
  std::vector<Kernel> kernels;
  std::vector<int64_t> wanted;
  {
    TableScan s(db, "SELECT globalTaskId, opType, inputShapes FROM COMPUTE_TASK_INFO");
    if (!s.ok()) return false;
    while ((rc = s.next()) == 1) {
      for (int c : {0, 1, 2})
        if (!s.is_int_or_null(c)) return false;
      if (!s.is_int(1) || s.integer(1) != *op_type || !s.is_int(0)) continue;
      kernels.push_back({s.integer(0), s.is_int(2), s.integer(2)});
      if (s.is_int(2)) wanted.push_back(s.integer(2));
    }
    if (rc != 0) return false;
  }
  // TASK rows in the range, by globalTaskId (a task id may repeat: each row joins).
  std::vector<int64_t> tasks;
  {
    TableScan s(db, "SELECT globalTaskId, startNs, endNs FROM TASK");
    if (!s.ok()) return false;
    while ((rc = s.next()) == 1) {
      for (int c : {0, 1, 2})
        if (!s.is_int_or_null(c)) return false;
      if (s.is_int(0) && s.is_int(1) && s.is_int(2) && s.integer(1) >= lo && s.integer(2) <= hi)
        tasks.push_back(s.integer(0));
    }
    if (rc != 0) return false;
    std::sort(tasks.begin(), tasks.end());
  }
  StringCells strings;
  if (!strings.load_ids(db, std::move(wanted))) return false;
  for (const Kernel& k : kernels) {
    const auto [first, last] = std::equal_range(tasks.begin(), tasks.end(), k.task);
    const frame::Cell shape = k.has_shape ? strings.find(k.shape) : frame::Cell::null();
    for (auto it = first; it != last; ++it) shapes.push_back(shape);
  }
  out = std::move(f);
  return true;
}

}  // namespace cs::recipes::ep_load_balance
