#include "db/profiler_db.h"

#include "io/csv/csv_cells.h"

#include <algorithm>
#include <string_view>

#include "db/column_checks.h"

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

bool read_compute_kernels(const Database& db, const StringIds& strings,
                          const std::function<void(const io::KernelRecord&)>& on_kernel,
                          io::Diagnostics& diag) {
  if (!db.require("COMPUTE_TASK_INFO", {"name", "globalTaskId", "opType", "inputShapes"}, diag) ||
      !db.require("TASK", {"startNs", "endNs", "globalTaskId"}, diag)) {
    return false;
  }
  std::vector<StepTime> steps;
  if (!read_step_time(db, steps, diag)) steps.clear();
  const bool has_dtypes = db.has_column("COMPUTE_TASK_INFO", "inputDataTypes");
  const bool has_wait = db.has_column("COMPUTE_TASK_INFO", "waitNs");
  // Optional text columns, NULL when this producer's version lacks them.
  auto optional_column = [&](const char* column) {
    return db.has_column("COMPUTE_TASK_INFO", column) ? std::string("c.") + column + ", "
                                                      : std::string("NULL, ");
  };
  std::string sql = "SELECT c.name, c.opType, c.inputShapes, ";
  sql += has_dtypes ? "c.inputDataTypes, " : "NULL, ";
  sql += has_wait ? "c.waitNs, " : "NULL, ";
  sql += "t.startNs, t.endNs, ";
  sql += optional_column("inputFormats");
  sql += optional_column("outputShapes");
  sql += optional_column("outputFormats");
  sql +=
      "NULL FROM COMPUTE_TASK_INFO c JOIN TASK t ON t.globalTaskId = "
      "c.globalTaskId ORDER BY t.startNs";
  auto st = db.prepare(sql, "COMPUTE_TASK_INFO", diag);
  if (!st) return false;
  BadCells bad(db.path(), "COMPUTE_TASK_INFO");
  int64_t missing_ids = 0;
  StepResult r;
  size_t step_i = 0;
  while ((r = st->step(diag)) == StepResult::kRow) {
    auto name_id = st->int64_at(0);
    auto start = st->int64_at(5);
    auto end = st->int64_at(6);
    int64_t span = 0;  // endNs - startNs; a difference beyond int64 is a bad endNs
    const bool overflow = start && end && __builtin_sub_overflow(*end, *start, &span);
    if (!start || !end || overflow) {
      if (!start) bad.add("TASK.startNs");
      if (!end || overflow) bad.add("TASK.endNs");
      continue;
    }
    std::optional<std::string_view> name = name_id ? strings.find(*name_id) : std::nullopt;
    if (!name) {
      if (name_id) {
        ++missing_ids;
      } else {
        bad.add("name");
      }
      continue;
    }
    io::KernelRecord k;
    k.name = *name;
    auto text = [&](int col) -> std::string_view {
      auto id = st->int64_at(col);
      if (!id) return {};
      auto s = strings.find(*id);
      if (!s) ++missing_ids;
      return s ? *s : std::string_view();
    };
    // Shape, dtype and format texts carry the quotes kernel_details.csv's cells hold after CSV
    // unquoting ("\"64,3,11,11;64\""); removed as that reader removes them.
    k.type = text(1);
    k.input_shapes = io::strip_quotes(text(2));
    k.input_dtypes = io::strip_quotes(text(3));
    k.input_formats = io::strip_quotes(text(7));
    k.output_shapes = io::strip_quotes(text(8));
    k.output_formats = io::strip_quotes(text(9));
    k.start_us = static_cast<double>(*start) / 1000.0;
    k.duration_us = static_cast<double>(span) / 1000.0;
    if (auto w = st->int64_at(4)) k.wait_us = static_cast<double>(*w) / 1000.0;
    while (step_i < steps.size() && steps[step_i].end_ns < *start) ++step_i;
    k.step_id = step_i < steps.size() && steps[step_i].start_ns <= *start ? steps[step_i].id : -1;
    on_kernel(k);
  }
  bad.report(diag);
  if (missing_ids > 0) {
    diag.error(db.path(), 0,
               "table COMPUTE_TASK_INFO: " + std::to_string(missing_ids) +
                   " string id(s) missing from STRING_IDS",
               "those kernels were left out or kept without the missing text; the database is "
               "incomplete: re-export the rank's profile data");
  }
  return r != StepResult::kError;
}

bool read_meta_data(const Database& db, io::ProfilerMetadata& out, io::Diagnostics& diag) {
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
  bool ok = io::parse_profiler_metadata(json, db.path(), out, local);
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

bool read_communication_ops(const Database& db, const StringIds& strings,
                            const std::function<void(const CommunicationOp&)>& on_op,
                            io::Diagnostics& diag) {
  if (!db.has_table("COMMUNICATION_OP")) return true;  // a job without collectives
  if (!db.require("COMMUNICATION_OP", {"opName", "startNs", "endNs", "opType"}, diag)) return false;
  auto st =
      db.prepare("SELECT opName, opType, startNs, endNs FROM COMMUNICATION_OP ORDER BY startNs",
                 "COMMUNICATION_OP", diag);
  if (!st) return false;
  BadCells bad(db.path(), "COMMUNICATION_OP");
  int64_t missing_ids = 0;
  StepResult r;
  while ((r = st->step(diag)) == StepResult::kRow) {
    auto name_id = st->int64_at(0);
    auto type_id = st->int64_at(1);
    auto start = st->int64_at(2);
    auto end = st->int64_at(3);
    int64_t span = 0;  // endNs - startNs; a difference beyond int64 is a bad endNs
    if (!name_id || !start || !end || __builtin_sub_overflow(*end, *start, &span)) {
      bad.add(!name_id ? "opName" : !start ? "startNs" : "endNs");
      continue;
    }
    auto name = strings.find(*name_id);
    if (!name) {
      ++missing_ids;
      continue;
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
  }
  bad.report(diag);
  if (missing_ids > 0) {
    diag.error(db.path(), 0,
               "table COMMUNICATION_OP: " + std::to_string(missing_ids) +
                   " string id(s) missing from STRING_IDS",
               "those operators were left out; the database is incomplete: re-export the rank's "
               "profile data");
  }
  return r != StepResult::kError;
}

}  // namespace cs::db
