#include "recipes/free_analysis_scan.h"

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "recipes/table_scan.h"

namespace cs::recipes {

namespace {

// Column c of the current row as a RawValue; a text is kept in `texts`.
RawValue raw(const TableScan& s, int c, std::deque<std::string>& texts) {
  RawValue v;
  switch (s.type(c)) {
    case SQLITE_INTEGER:
      v.kind = Cell::Kind::kInt;
      v.int_value = s.integer(c);
      break;
    case SQLITE_FLOAT:
      v.kind = Cell::Kind::kReal;
      v.real_value = s.cell(c).num();
      break;
    case SQLITE_NULL:
      break;
    default:
      v.kind = Cell::Kind::kText;
      v.text = &texts.emplace_back(s.text(c));
  }
  return v;
}

bool is_int(int type) {
  return type == SQLITE_INTEGER;
}
bool int_or_null(int type) {
  return type == SQLITE_INTEGER || type == SQLITE_NULL;
}

// The plan SQLite chooses for free_analysis's link query on the profilers' schema: the order of
// its rows is TaskIndex's order, every lookup is keyed. Anything else: run the SQL.
const std::vector<std::string> kLinkPlan = {
    "SCAN TASK USING INDEX TaskIndex", "SEARCH cann USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN",
    "SEARCH task_str USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN",
    "SEARCH conn USING AUTOMATIC COVERING INDEX (connectionId=?) LEFT-JOIN",
    "SEARCH pytorch USING AUTOMATIC COVERING INDEX (connectionId=?) LEFT-JOIN"};

// A CONNECTION_IDS row matching one connectionId: SQLite's automatic covering index on
// (connectionId) holds (connectionId, id, rowid), so the matches come in (id, rowid) order, NULL
// ids first.
struct ConnMatch {
  bool id_null = true;
  int64_t id = 0;
  int64_t rowid = 0;
};

}  // namespace

std::vector<BusyInterval> merge_busy_intervals(std::vector<BusyInterval> rows) {
  std::sort(rows.begin(), rows.end(),
            [](const BusyInterval& a, const BusyInterval& b) { return a.start < b.start; });
  std::vector<BusyInterval> out;
  int64_t reach = 0;  // the latest end of the rows before the current block of equal starts
  for (size_t i = 0; i < rows.size();) {
    const int64_t s = rows[i].start;
    int64_t block_end = rows[i].end;
    size_t j = i + 1;
    for (; j < rows.size() && rows[j].start == s; ++j) block_end = std::max(block_end, rows[j].end);
    if (i == 0 || s > reach)
      out.push_back({s, block_end});
    else
      out.back().end = std::max(out.back().end, block_end);
    reach = i == 0 ? block_end : std::max(reach, block_end);
    i = j;
  }
  return out;
}

bool scan_busy_intervals(sqlite3* db, std::vector<BusyInterval>& out) {
  std::unordered_set<int64_t> compute;
  {
    TableScan cti(db, "SELECT globalTaskId FROM COMPUTE_TASK_INFO");
    if (!cti.ok()) return false;
    int rc;
    while ((rc = cti.next()) == 1) {
      if (!int_or_null(cti.type(0))) return false;
      if (is_int(cti.type(0))) compute.insert(cti.integer(0));
    }
    if (rc != 0) return false;
  }
  std::vector<BusyInterval> rows;
  {
    TableScan task(db, "SELECT startNs, endNs, globalTaskId FROM TASK");
    if (!task.ok()) return false;
    int rc;
    while ((rc = task.next()) == 1) {
      if (!int_or_null(task.type(2))) return false;
      if (!is_int(task.type(2)) || !compute.count(task.integer(2))) continue;
      if (!is_int(task.type(0)) || !is_int(task.type(1))) return false;
      rows.push_back({task.integer(0), task.integer(1)});
    }
    if (rc != 0) return false;
  }
  {
    TableScan comm(db, "SELECT startNs, endNs FROM COMMUNICATION_OP");
    if (!comm.ok()) return false;
    int rc;
    while ((rc = comm.next()) == 1) {
      if (!is_int(comm.type(0)) || !is_int(comm.type(1))) return false;
      rows.push_back({comm.integer(0), comm.integer(1)});
    }
    if (rc != 0) return false;
  }
  out = merge_busy_intervals(std::move(rows));
  return true;
}

RawValue RawValue::of(const Cell& c) {
  RawValue v;
  v.kind = c.kind;
  v.int_value = c.i();
  v.real_value = c.num();
  v.text = c.text_ptr();
  return v;
}

const std::string& RawValue::str() const {
  static const std::string empty;
  return kind == Cell::Kind::kText && text ? *text : empty;
}

bool scan_link_rows(sqlite3* db, const std::string& link_sql, LinkRows& out) {
  if (!query_plan_is(db, link_sql, kLinkPlan)) return false;
  int rc;
  std::unordered_map<int64_t, std::pair<Cell, Cell>> cann;
  {
    TableScan s(db, "SELECT connectionId, startNs, endNs FROM CANN_API");
    if (!s.ok()) return false;
    while ((rc = s.next()) == 1) {
      if (!is_int(s.type(0))) return false;
      cann.emplace(s.integer(0), std::make_pair(s.cell(1), s.cell(2)));
    }
    if (rc != 0) return false;
  }
  std::unordered_map<int64_t, Cell> strings;
  {
    TableScan s(db, "SELECT id, value FROM STRING_IDS");
    if (!s.ok()) return false;
    while ((rc = s.next()) == 1) {
      if (!is_int(s.type(0))) return false;
      strings.emplace(s.integer(0), s.cell(1));
    }
    if (rc != 0) return false;
  }
  std::unordered_map<int64_t, std::vector<ConnMatch>> conns;
  {
    TableScan s(db, "SELECT rowid, id, connectionId FROM CONNECTION_IDS");
    if (!s.ok()) return false;
    while ((rc = s.next()) == 1) {
      if (!is_int(s.type(0)) || !int_or_null(s.type(1)) || !int_or_null(s.type(2))) return false;
      if (is_int(s.type(2)))
        conns[s.integer(2)].push_back({!is_int(s.type(1)), s.integer(1), s.integer(0)});
    }
    if (rc != 0) return false;
    for (auto& [key, v] : conns)
      std::sort(v.begin(), v.end(), [](const ConnMatch& a, const ConnMatch& b) {
        if (a.id_null != b.id_null) return a.id_null;
        if (a.id != b.id) return a.id < b.id;
        return a.rowid < b.rowid;
      });
  }
  std::deque<std::string> texts;  // the PyTorch times' texts, moved to `out`
  std::unordered_map<int64_t, std::pair<RawValue, RawValue>> pytorch;
  {
    TableScan s(db, "SELECT connectionId, startNs, endNs FROM PYTORCH_API");
    if (!s.ok()) return false;
    while ((rc = s.next()) == 1) {
      if (!int_or_null(s.type(0))) return false;
      if (is_int(s.type(0)) &&
          !pytorch.emplace(s.integer(0), std::make_pair(raw(s, 1, texts), raw(s, 2, texts))).second)
        return false;  // a repeated connectionId: SQLite's order among the matches is its own
    }
    if (rc != 0) return false;
  }
  out = LinkRows{};
  out.texts = std::move(texts);
  auto& type = out.cells.add("task_type");
  auto& ts = out.cells.add("task_ts");
  auto& te = out.cells.add("task_end");
  auto& cts = out.cells.add("cann_ts");
  auto& cte = out.cells.add("cann_end");
  TableScan task(db,
                 "SELECT startNs, endNs, connectionId, taskType FROM TASK INDEXED BY TaskIndex "
                 "ORDER BY startNs");
  if (!task.ok()) return false;
  const std::pair<Cell, Cell> none;
  const std::pair<RawValue, RawValue> no_launch;
  while ((rc = task.next()) == 1) {
    if (!int_or_null(task.type(2)) || !int_or_null(task.type(3))) return false;
    const bool has_conn = is_int(task.type(2));
    const int64_t conn_id = task.integer(2);
    const Cell start = task.cell(0), end = task.cell(1);
    const Cell* kind = nullptr;
    if (is_int(task.type(3)))
      if (auto it = strings.find(task.integer(3)); it != strings.end()) kind = &it->second;
    const std::pair<Cell, Cell>* api = &none;
    if (has_conn)
      if (auto it = cann.find(conn_id); it != cann.end()) api = &it->second;
    auto emit = [&](const std::pair<RawValue, RawValue>& pt) {
      type.push_back(kind ? *kind : Cell::null());
      ts.push_back(start);
      te.push_back(end);
      cts.push_back(api->first);
      cte.push_back(api->second);
      out.pytorch_ts.push_back(pt.first);
      out.pytorch_end.push_back(pt.second);
    };
    const auto matches = has_conn ? conns.find(conn_id) : conns.end();
    if (matches == conns.end()) {
      emit(no_launch);
      continue;
    }
    for (const ConnMatch& m : matches->second) {
      const std::pair<RawValue, RawValue>* pt = &no_launch;
      if (!m.id_null)
        if (auto it = pytorch.find(m.id); it != pytorch.end()) pt = &it->second;
      emit(*pt);
    }
  }
  return rc == 0;
}

}  // namespace cs::recipes
