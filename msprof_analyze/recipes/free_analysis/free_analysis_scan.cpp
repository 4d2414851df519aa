#include "msprof_analyze/recipes/free_analysis/free_analysis_scan.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "msprof_analyze/recipes/table_scan.h"

namespace cs::recipes::free_analysis {

namespace {

// Column c of the current row as a RawValue; a text is kept in `texts`.
RawValue raw(const TableScan& s, int c, std::deque<std::string>& texts) {
  RawValue v;
  switch (s.type(c)) {
    case SQLITE_INTEGER:
      v.kind = frame::Cell::Kind::kInt;
      v.int_value = s.integer(c);
      break;
    case SQLITE_FLOAT:
      v.kind = frame::Cell::Kind::kReal;
      v.real_value = s.cell(c).num();
      break;
    case SQLITE_NULL:
      break;
    default:
      v.kind = frame::Cell::Kind::kText;
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

// A TASK row of the link query, with its TaskIndex key (start, task id; NULL first) and rowid.
struct TaskRow {
  bool has_start, has_task_id, has_conn, has_type;
  int64_t start, task_id, rowid, conn, type;
  frame::Cell start_cell, end_cell;
};

bool index_before(const TaskRow& a, const TaskRow& b) {
  if (a.has_start != b.has_start) return !a.has_start;
  if (a.start != b.start) return a.start < b.start;
  if (a.has_task_id != b.has_task_id) return !a.has_task_id;
  if (a.task_id != b.task_id) return a.task_id < b.task_id;
  return a.rowid < b.rowid;
}

// The link query's lookups, each table read once into vectors sorted by its key.
struct LinkTables {
  std::vector<std::pair<int64_t, std::pair<frame::Cell, frame::Cell>>> cann;
  std::vector<std::pair<int64_t, frame::Cell>> strings;
  std::vector<ConnectionRow> conns;
  std::vector<std::pair<int64_t, std::pair<RawValue, RawValue>>> pytorch;
  std::deque<std::string> texts;  // the PyTorch times' texts
};

bool read_link_tables(const db::Database& db, LinkTables& t) {
  int rc;
  {
    TableScan s(db, "SELECT connectionId, startNs, endNs FROM CANN_API");
    if (!s.ok()) return false;
    while ((rc = s.next()) == 1) {
      if (!is_int(s.type(0))) return false;
      t.cann.emplace_back(s.integer(0), std::make_pair(s.cell(1), s.cell(2)));
    }
    if (rc != 0) return false;
    sort_by_key(t.cann);
  }
  if (!load_connections(db, t.conns)) return false;
  {
    TableScan s(db, "SELECT connectionId, startNs, endNs FROM PYTORCH_API");
    if (!s.ok()) return false;
    while ((rc = s.next()) == 1) {
      if (!int_or_null(s.type(0))) return false;
      if (is_int(s.type(0)))
        t.pytorch.emplace_back(s.integer(0),
                               std::make_pair(raw(s, 1, t.texts), raw(s, 2, t.texts)));
    }
    if (rc != 0) return false;
    sort_by_key(t.pytorch);
    for (size_t i = 1; i < t.pytorch.size(); ++i)
      if (t.pytorch[i].first == t.pytorch[i - 1].first)
        return false;  // a repeated connectionId: SQLite's order among the matches is its own
  }
  return true;
}

// STRING_IDS' values for the task types `tasks` name (only those are interned for the run).
bool read_task_types(const db::Database& db, const std::vector<TaskRow>& tasks, LinkTables& t) {
  std::vector<int64_t> wanted;
  for (const TaskRow& task : tasks)
    if (task.has_type) wanted.push_back(task.type);
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  TableScan s(db, "SELECT id, value FROM STRING_IDS");
  if (!s.ok()) return false;
  int rc;
  while ((rc = s.next()) == 1) {
    if (!is_int(s.type(0))) return false;
    if (std::binary_search(wanted.begin(), wanted.end(), s.integer(0)))
      t.strings.emplace_back(s.integer(0), s.cell(1));
  }
  if (rc != 0) return false;
  sort_by_key(t.strings);
  return true;
}

// The link rows from the TASK rows in TaskIndex's order.
void build_link_rows(const std::vector<TaskRow>& tasks, LinkTables& t, LinkRows& out) {
  out = LinkRows{};
  out.texts = std::move(t.texts);
  auto& type = out.cells.add("task_type");
  auto& ts = out.cells.add("task_ts");
  auto& te = out.cells.add("task_end");
  auto& cts = out.cells.add("cann_ts");
  auto& cte = out.cells.add("cann_end");
  for (auto* c : {&type, &ts, &te, &cts, &cte}) c->cells.reserve(tasks.size());
  out.pytorch_ts.reserve(tasks.size());
  out.pytorch_end.reserve(tasks.size());
  const std::pair<frame::Cell, frame::Cell> none;
  const std::pair<RawValue, RawValue> no_launch;
  for (const TaskRow& task : tasks) {
    const frame::Cell* kind = task.has_type ? find_key(t.strings, task.type) : nullptr;
    const std::pair<frame::Cell, frame::Cell>* api =
        task.has_conn ? find_key(t.cann, task.conn) : nullptr;
    if (!api) api = &none;
    auto emit = [&](const std::pair<RawValue, RawValue>& pt) {
      type.push_back(kind ? *kind : frame::Cell::null());
      ts.push_back(task.start_cell);
      te.push_back(task.end_cell);
      cts.push_back(api->first);
      cte.push_back(api->second);
      out.pytorch_ts.push_back(pt.first);
      out.pytorch_end.push_back(pt.second);
    };
    const std::span<const ConnectionRow> matches =
        task.has_conn ? connection_matches(t.conns, task.conn) : std::span<const ConnectionRow>();
    if (matches.empty()) emit(no_launch);
    for (const ConnectionRow& m : matches) {
      const std::pair<RawValue, RawValue>* pt = m.has_id ? find_key(t.pytorch, m.id) : nullptr;
      emit(pt ? *pt : no_launch);
    }
  }
}

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

bool scan_busy_intervals(const db::Database& db, std::vector<BusyInterval>& out) {
  FreeAnalysisScan scan = scan_free_analysis(db, nullptr);
  if (scan.busy_ok) out = std::move(scan.busy);
  return scan.busy_ok;
}

RawValue RawValue::of(const frame::Cell& c) {
  RawValue v;
  v.kind = c.kind;
  v.int_value = c.i();
  v.real_value = c.num();
  v.text = c.text_ptr();
  return v;
}

const std::string& RawValue::str() const {
  static const std::string empty;
  return kind == frame::Cell::Kind::kText && text ? *text : empty;
}

bool scan_link_rows(const db::Database& db, const std::string& link_sql, LinkRows& out) {
  FreeAnalysisScan scan = scan_free_analysis(db, &link_sql);
  if (scan.link_ok) out = std::move(scan.link);
  return scan.link_ok;
}

FreeAnalysisScan scan_free_analysis(const db::Database& db, const std::string* link_sql) {
  FreeAnalysisScan out;
  int rc;
  // The busy query's compute tasks: COMPUTE_TASK_INFO's ids, sorted.
  std::vector<int64_t> compute;
  out.busy_ok = true;
  {
    TableScan cti(db, "SELECT globalTaskId FROM COMPUTE_TASK_INFO");
    out.busy_ok = cti.ok();
    while (out.busy_ok && (rc = cti.next()) == 1) {
      if (!int_or_null(cti.type(0))) out.busy_ok = false;
      if (is_int(cti.type(0))) compute.push_back(cti.integer(0));
    }
    if (out.busy_ok && rc != 0) out.busy_ok = false;
    std::sort(compute.begin(), compute.end());
  }
  LinkTables tables;
  out.link_ok = link_sql &&
                db::query_plan_is(db, *link_sql, kLinkPlan, db::task_index_is_start_then_task_id) &&
                read_link_tables(db, tables);
  if (!out.busy_ok && !out.link_ok) return out;
  // TASK once, in rowid order: the compute tasks' intervals and the link query's rows.
  std::vector<BusyInterval> busy;
  std::vector<TaskRow> tasks;
  {
    TableScan task(db, out.link_ok ? "SELECT startNs, endNs, globalTaskId, connectionId, "
                                     "taskType, rowid FROM TASK"
                                   : "SELECT startNs, endNs, globalTaskId FROM TASK");
    if (!task.ok()) return FreeAnalysisScan{};
    while ((rc = task.next()) == 1) {
      const bool start_int = is_int(task.type(0));
      const bool id_ok = int_or_null(task.type(2)), has_id = is_int(task.type(2));
      if (out.busy_ok) {
        if (!id_ok) {
          out.busy_ok = false;
        } else if (has_id && std::binary_search(compute.begin(), compute.end(), task.integer(2))) {
          if (start_int && is_int(task.type(1)))
            busy.push_back({task.integer(0), task.integer(1)});
          else
            out.busy_ok = false;
        }
      }
      if (out.link_ok) {
        // TaskIndex's order is reproduced for integer or NULL keys only.
        if (!int_or_null(task.type(0)) || !id_ok || !int_or_null(task.type(3)) ||
            !int_or_null(task.type(4))) {
          out.link_ok = false;
        } else {
          tasks.push_back({start_int, has_id, is_int(task.type(3)), is_int(task.type(4)),
                           task.integer(0), task.integer(2), task.integer(5), task.integer(3),
                           task.integer(4), task.cell(0), task.cell(1)});
        }
      }
      if (!out.busy_ok && !out.link_ok) return out;
    }
    if (rc != 0) return FreeAnalysisScan{};
  }
  if (out.busy_ok) {
    TableScan comm(db, "SELECT startNs, endNs FROM COMMUNICATION_OP");
    out.busy_ok = comm.ok();
    while (out.busy_ok && (rc = comm.next()) == 1) {
      if (!is_int(comm.type(0)) || !is_int(comm.type(1)))
        out.busy_ok = false;
      else
        busy.push_back({comm.integer(0), comm.integer(1)});
    }
    if (out.busy_ok && rc != 0) out.busy_ok = false;
    if (out.busy_ok) out.busy = merge_busy_intervals(std::move(busy));
  }
  if (out.link_ok) out.link_ok = read_task_types(db, tasks, tables);
  if (out.link_ok) {
    std::sort(tasks.begin(), tasks.end(), index_before);
    build_link_rows(tasks, tables, out.link);
  }
  return out;
}

}  // namespace cs::recipes::free_analysis
