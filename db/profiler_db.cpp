#include "db/profiler_db.h"

#include "io/csv/csv_cells.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "db/column_checks.h"
#include "db/query_plan.h"

namespace cs::db {

bool read_step_time(const Database& db, std::vector<StepTime>& out, io::Diagnostics& diag) {
  out.clear();
  if (!db.has_table("STEP_TIME")) return true;
  if (!db.require("STEP_TIME", {"id", "startNs", "endNs"}, diag)) return false;
  auto st = db.prepare("SELECT id, startNs, endNs FROM STEP_TIME", "STEP_TIME", diag);
  if (!st) return false;
  BadCells bad(db.path(), "STEP_TIME");
  StepResult r;
  while ((r = st->step(diag)) == StepResult::kRow) {
    auto id = st->int64_at(0);
    auto s = st->int64_at(1);
    auto e = st->int64_at(2);
    if (!id || !s || !e) {
      bad.skip_row();
      continue;
    }
    out.push_back({*id, *s, *e});
  }
  bad.report(diag);
  std::sort(out.begin(), out.end(),
            [](const StepTime& a, const StepTime& b) { return a.start_ns < b.start_ns; });
  return r != StepResult::kError;
}

namespace {

// One row of the compute-kernel query: COMPUTE_TASK_INFO's columns (string ids, waitNs) and
// TASK's times, as Statement::int64_at reads them (nullopt: NULL).
enum KernelColumn {
  kName,
  kOpType,
  kInputShapes,
  kInputDataTypes,
  kWaitNs,
  kStartNs,
  kEndNs,
  kInputFormats,
  kOutputShapes,
  kOutputFormats,
  kKernelColumns
};
using KernelRow = std::array<std::optional<int64_t>, kKernelColumns>;

// SQLite's plan for the query on the profilers' schema: TASK walked through TaskIndex (so its
// rows come in (startNs, globalTaskId, rowid) order, NULL starts first), each joined to the
// COMPUTE_TASK_INFO row whose INTEGER PRIMARY KEY is its globalTaskId (at most one).
const std::vector<std::string> kKernelPlan = {"SCAN t USING INDEX TaskIndex",
                                              "SEARCH c USING INTEGER PRIMARY KEY (rowid=?)"};

// The query's rows answered from the file's pages, in SQLite's order, when SQLite plans it as
// kKernelPlan and every value read is an integer or NULL (as the profilers write them); false
// (nothing given to `row`) otherwise: the query runs through SQLite then. `c_columns`: the
// COMPUTE_TASK_INFO column of each KernelColumn ("" for NULL; kStartNs and kEndNs unused).
bool kernel_rows_from_pages(const Database& db, const std::string& sql,
                            const std::array<std::string, kKernelColumns>& c_columns,
                            const std::function<void(const KernelRow&)>& row) {
  if (!query_plan_is(db, sql, kKernelPlan, task_index_is_start_then_task_id)) return false;
  auto int_or_null = [](const io::sqlite::StoredValue& v) {
    return v.kind == io::sqlite::StoredValue::Kind::kInt ||
           v.kind == io::sqlite::StoredValue::Kind::kNull;
  };
  auto value = [](const io::sqlite::StoredValue& v) -> std::optional<int64_t> {
    if (v.kind == io::sqlite::StoredValue::Kind::kNull) return std::nullopt;
    return v.i;
  };
  // COMPUTE_TASK_INFO in rowid (= globalTaskId) order, its columns as the query reads them.
  std::string c_sql = "SELECT globalTaskId";
  std::vector<int> c_of;  // KernelColumn -> column of c_sql, or -1
  int n = 1;
  for (const std::string& col : c_columns) {
    c_of.push_back(col.empty() ? -1 : n++);
    if (!col.empty()) c_sql += ", " + col;
  }
  auto c = db.page_scan(c_sql + " FROM COMPUTE_TASK_INFO");
  auto t = db.page_scan("SELECT startNs, endNs, globalTaskId, rowid FROM TASK", true);
  if (!c || !t) return false;
  std::vector<int64_t> task_ids(c->rows.size());
  std::vector<KernelRow> ops(c->rows.size());
  std::vector<io::sqlite::StoredValue> all;
  for (size_t r = 0; r < c->rows.size(); ++r) {
    c->rows.decode_picked(r, c->pick, all);  // the query's columns, in its order
    auto v = [&](int k) -> const io::sqlite::StoredValue& { return all[static_cast<size_t>(k)]; };
    if (v(0).kind != io::sqlite::StoredValue::Kind::kInt) return false;
    const int64_t id = v(0).i;
    if (r > 0 && id <= task_ids[r - 1]) return false;  // not the rowid order assumed
    task_ids[r] = id;
    for (int k = 0; k < kKernelColumns; ++k) {
      if (c_of[static_cast<size_t>(k)] < 0) continue;
      const io::sqlite::StoredValue& x = v(c_of[static_cast<size_t>(k)]);
      if (!int_or_null(x)) return false;
      ops[r][static_cast<size_t>(k)] = value(x);
    }
  }
  struct Joined {
    std::optional<int64_t> start, end;
    int64_t task_id, rowid;
    size_t op;
  };
  std::vector<Joined> rows;
  for (size_t r = 0; r < t->rows.size(); ++r) {
    t->rows.decode_picked(r, t->pick, all);
    const auto& start = all[0];
    const auto& end = all[1];
    const auto& task = all[2];
    if (!int_or_null(start) || !int_or_null(end) || !int_or_null(task)) return false;
    if (task.kind == io::sqlite::StoredValue::Kind::kNull) continue;  // joins nothing
    auto op = std::lower_bound(task_ids.begin(), task_ids.end(), task.i);
    if (op == task_ids.end() || *op != task.i) continue;
    rows.push_back({value(start), value(end), task.i, t->rows.rowid(r),
                    static_cast<size_t>(op - task_ids.begin())});
  }
  std::sort(rows.begin(), rows.end(), [](const Joined& a, const Joined& b) {
    if (a.start != b.start) return a.start < b.start;  // nullopt (NULL) first, as SQLite
    if (a.task_id != b.task_id) return a.task_id < b.task_id;
    return a.rowid < b.rowid;
  });
  for (const Joined& j : rows) {
    KernelRow k = ops[j.op];
    k[kStartNs] = j.start;
    k[kEndNs] = j.end;
    row(k);
  }
  return true;
}

}  // namespace

bool read_compute_kernels(const Database& db, const StringIds& strings,
                          const std::function<void(const readers::KernelRecord&)>& on_kernel,
                          io::Diagnostics& diag) {
  if (!db.require("COMPUTE_TASK_INFO", {"name", "globalTaskId", "opType", "inputShapes"}, diag) ||
      !db.require("TASK", {"startNs", "endNs", "globalTaskId"}, diag)) {
    return false;
  }
  std::vector<StepTime> steps;
  if (!read_step_time(db, steps, diag)) steps.clear();
  // The columns read from COMPUTE_TASK_INFO, by KernelColumn; optional ones are NULL when this
  // producer's version lacks them.
  std::array<std::string, kKernelColumns> c_columns = {"name", "opType", "inputShapes"};
  for (auto [k, column] : {std::pair{kInputDataTypes, "inputDataTypes"},
                           {kWaitNs, "waitNs"},
                           {kInputFormats, "inputFormats"},
                           {kOutputShapes, "outputShapes"},
                           {kOutputFormats, "outputFormats"}})
    if (db.has_column("COMPUTE_TASK_INFO", column)) c_columns[k] = column;
  std::string sql = "SELECT ";
  for (int k = 0; k < kKernelColumns; ++k) {
    const std::string& col = c_columns[static_cast<size_t>(k)];
    sql += k == kStartNs ? "t.startNs, "
           : k == kEndNs ? "t.endNs, "
           : col.empty() ? "NULL, "
                         : "c." + col + ", ";
  }
  sql +=
      "NULL FROM COMPUTE_TASK_INFO c JOIN TASK t ON t.globalTaskId = "
      "c.globalTaskId ORDER BY t.startNs";
  BadCells bad(db.path(), "COMPUTE_TASK_INFO");
  int64_t missing_ids = 0;
  size_t step_i = 0;
  auto on_row = [&](const KernelRow& row) {
    const auto& start = row[kStartNs];
    const auto& end = row[kEndNs];
    int64_t span = 0;  // endNs - startNs; a difference beyond int64 is a bad endNs
    const bool overflow = start && end && __builtin_sub_overflow(*end, *start, &span);
    if (!start || !end || overflow) {
      if (!start) bad.add("TASK.startNs");
      if (!end || overflow) bad.add("TASK.endNs");
      return;
    }
    const auto& name_id = row[kName];
    std::optional<std::string_view> name = name_id ? strings.find(*name_id) : std::nullopt;
    if (!name) {
      if (name_id) {
        ++missing_ids;
      } else {
        bad.add("name");
      }
      return;
    }
    readers::KernelRecord k;
    k.name = *name;
    auto text = [&](KernelColumn col) -> std::string_view {
      const auto& id = row[col];
      if (!id) return {};
      auto s = strings.find(*id);
      if (!s) ++missing_ids;
      return s ? *s : std::string_view();
    };
    // Shape, dtype and format texts carry the quotes kernel_details.csv's cells hold after CSV
    // unquoting ("\"64,3,11,11;64\""); removed as that reader removes them.
    k.type = text(kOpType);
    k.input_shapes = io::strip_quotes(text(kInputShapes));
    k.input_dtypes = io::strip_quotes(text(kInputDataTypes));
    k.input_formats = io::strip_quotes(text(kInputFormats));
    k.output_shapes = io::strip_quotes(text(kOutputShapes));
    k.output_formats = io::strip_quotes(text(kOutputFormats));
    k.start_us = static_cast<double>(*start) / 1000.0;
    k.duration_us = static_cast<double>(span) / 1000.0;
    if (const auto& w = row[kWaitNs]) k.wait_us = static_cast<double>(*w) / 1000.0;
    while (step_i < steps.size() && steps[step_i].end_ns < *start) ++step_i;
    k.step_id = step_i < steps.size() && steps[step_i].start_ns <= *start ? steps[step_i].id : -1;
    on_kernel(k);
  };
  bool ok = kernel_rows_from_pages(db, sql, c_columns, on_row);
  if (!ok) {
    auto st = db.prepare(sql, "COMPUTE_TASK_INFO", diag);
    if (!st) return false;
    StepResult r;
    while ((r = st->step(diag)) == StepResult::kRow) {
      KernelRow row;
      for (int k = 0; k < kKernelColumns; ++k) row[static_cast<size_t>(k)] = st->int64_at(k);
      on_row(row);
    }
    ok = r != StepResult::kError;
  }
  bad.report(diag);
  if (missing_ids > 0) {
    diag.error(db.path(), 0,
               "table COMPUTE_TASK_INFO: " + std::to_string(missing_ids) +
                   " string id(s) missing from STRING_IDS",
               "those kernels were left out or kept without the missing text; the database is "
               "incomplete: re-export the rank's profile data");
  }
  return ok;
}

bool read_meta_data(const Database& db, readers::ProfilerMetadata& out, io::Diagnostics& diag) {
  out = {};
  if (!db.has_table("META_DATA")) return false;
  if (!db.require("META_DATA", {"name", "value"}, diag)) return false;
  auto st = db.prepare(
      "SELECT name, value FROM META_DATA WHERE name IN ('distributed_args', "
      "'parallel_group_info')",
      "META_DATA", diag);
  if (!st) return false;
  std::string json = "{";
  StepResult r;
  int found = 0;
  while ((r = st->step(diag)) == StepResult::kRow) {
    if (found++) json += ',';
    json += '"';
    json += st->text_at(0);
    json += "\":";
    std::string_view v = st->text_at(1);
    json += v.empty() ? std::string_view("null") : v;
  }
  json += '}';
  if (r == StepResult::kError || found == 0) return false;
  io::Diagnostics local;
  bool ok = readers::parse_profiler_metadata(json, db.path(), out, local);
  for (auto d : local.items()) {
    d.what = "table META_DATA: " + d.what;
    d.line = 0;
    d.offset = -1;
    diag.add(std::move(d));
  }
  return ok;
}

std::vector<std::pair<int64_t, int64_t>> read_rank_device_map(const Database& db,
                                                              io::Diagnostics& diag) {
  std::vector<std::pair<int64_t, int64_t>> out;
  if (!db.has_table("RANK_DEVICE_MAP")) return out;
  if (!db.require("RANK_DEVICE_MAP", {"rankId", "deviceId"}, diag)) return out;
  auto st = db.prepare("SELECT rankId, deviceId FROM RANK_DEVICE_MAP", "RANK_DEVICE_MAP", diag);
  if (!st) return out;
  while (st->step(diag) == StepResult::kRow) {
    auto r = st->int64_at(0);
    auto d = st->int64_at(1);
    if (r && d) out.emplace_back(*r, *d);
  }
  return out;
}

namespace {

// The communication-op query's rows (opName, opType, startNs, endNs as Statement::int64_at reads
// them) from the file's pages, in SQLite's order, when SQLite scans COMMUNICATION_OP and sorts by
// start (equal starts in the order they came: SQLite's sorter takes the earlier row first on
// equal keys; NULL starts first) and every value is an integer or NULL; false (nothing given to
// `row`) otherwise: the query runs through SQLite then.
const std::vector<std::string> kCommOpPlan = {"SCAN COMMUNICATION_OP",
                                              "USE TEMP B-TREE FOR ORDER BY"};
using CommOpRow = std::array<std::optional<int64_t>, 4>;

bool comm_op_rows_from_pages(const Database& db, const std::string& sql,
                             const std::function<void(const CommOpRow&)>& row) {
  if (!query_plan_is(db, sql, kCommOpPlan)) return false;
  auto ops = db.page_scan("SELECT opName, opType, startNs, endNs FROM COMMUNICATION_OP");
  if (!ops) return false;
  std::vector<CommOpRow> rows(ops->rows.size());
  std::vector<io::sqlite::StoredValue> all;
  for (size_t r = 0; r < rows.size(); ++r) {
    ops->rows.decode_picked(r, ops->pick, all);
    for (size_t c = 0; c < 4; ++c) {
      const io::sqlite::StoredValue& v = all[c];
      if (v.kind == io::sqlite::StoredValue::Kind::kInt) {
        rows[r][c] = v.i;
      } else if (v.kind != io::sqlite::StoredValue::Kind::kNull) {
        return false;
      }
    }
  }
  std::vector<size_t> order(rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return rows[a][2] < rows[b][2]; });  // NULL first
  for (size_t i : order) row(rows[i]);
  return true;
}

}  // namespace

bool read_communication_ops(const Database& db, const StringIds& strings,
                            const std::function<void(const CommunicationOp&)>& on_op,
                            io::Diagnostics& diag) {
  if (!db.has_table("COMMUNICATION_OP")) return true;  // a job without collectives
  if (!db.require("COMMUNICATION_OP", {"opName", "startNs", "endNs", "opType"}, diag)) return false;
  const std::string sql =
      "SELECT opName, opType, startNs, endNs FROM COMMUNICATION_OP ORDER BY startNs";
  BadCells bad(db.path(), "COMMUNICATION_OP");
  int64_t missing_ids = 0;
  auto on_row = [&](const CommOpRow& row) {
    const auto& [name_id, type_id, start, end] = row;
    int64_t span = 0;  // endNs - startNs; a difference beyond int64 is a bad endNs
    if (!name_id || !start || !end || __builtin_sub_overflow(*end, *start, &span)) {
      bad.add(!name_id ? "opName" : !start ? "startNs" : "endNs");
      return;
    }
    auto name = strings.find(*name_id);
    if (!name) {
      ++missing_ids;
      return;
    }
    CommunicationOp op;
    op.name = *name;
    if (type_id) {
      auto type = strings.find(*type_id);
      if (type) op.type = *type;
    }
    op.start_us = static_cast<double>(*start) / 1000.0;
    op.duration_us = static_cast<double>(span) / 1000.0;
    on_op(op);
  };
  bool ok = comm_op_rows_from_pages(db, sql, on_row);
  if (!ok) {
    auto st = db.prepare(sql, "COMMUNICATION_OP", diag);
    if (!st) return false;
    StepResult r;
    while ((r = st->step(diag)) == StepResult::kRow)
      on_row({st->int64_at(0), st->int64_at(1), st->int64_at(2), st->int64_at(3)});
    ok = r != StepResult::kError;
  }
  bad.report(diag);
  if (missing_ids > 0) {
    diag.error(db.path(), 0,
               "table COMMUNICATION_OP: " + std::to_string(missing_ids) +
                   " string id(s) missing from STRING_IDS",
               "those operators were left out; the database is incomplete: re-export the rank's "
               "profile data");
  }
  return ok;
}

}  // namespace cs::db
