#include "msprof_analyze/recipes/export_summary/export_summary.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "frame/frame_ops.h"
#include "frame/pandas_sort.h"
#include "msprof_analyze/recipes/export_summary/export_summary_scan.h"
#include "msprof_analyze/recipes/frame_writers.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"

namespace cs::recipes::export_summary {

namespace {

using frame::Cell;

const char* kApiSql =
    "SELECT s.value AS \"API Name\", SUM(t.endNs - t.startNs) AS \"Total Time(ns)\", "
    "COUNT(*) AS \"Count\", AVG(t.endNs - t.startNs) AS \"Avg Time(ns)\", "
    "MIN(t.endNs - t.startNs) AS \"Min Time(ns)\", MAX(t.endNs - t.startNs) AS \"Max Time(ns)\" "
    "FROM CANN_API c JOIN STRING_IDS s ON c.name = s.id JOIN TASK t ON c.connectionId = "
    "t.connectionId GROUP BY s.value ORDER BY \"Total Time(ns)\" DESC";

// A compute task's texts through STRING_IDS, in msprof-analyze's column order.
std::string compute_sql(bool block_num, bool op_state) {
  auto text = [](const char* column, const char* as) {
    return std::string("(SELECT value FROM STRING_IDS WHERE id = t.") + column + ") AS " + as +
           ", ";
  };
  std::string sql =
      "SELECT " + text("name", "op_name") + "t.globalTaskId, " +
      (block_num ? "t.blockNum AS block_dim, t.mixBlockNum AS mix_block_dim, "
                 : "t.blockDim AS block_dim, t.mixBlockDim AS mix_block_dim, ") +
      text("opType", "op_type") + text("taskType", "task_type") +
      text("inputFormats", "input_formats") + text("inputShapes", "input_shapes") +
      text("inputDataTypes", "input_data_types") + text("outputShapes", "output_shapes") +
      text("outputFormats", "output_formats") + text("outputDataTypes", "output_data_types");
  if (op_state) sql += text("opState", "op_state");
  return sql +
         "task.startNs AS task_start_time, task.endNs AS task_end_time, "
         "task.endNs - task.startNs AS task_duration, task.deviceId AS device_id, "
         "task.modelId AS model_id, task.streamId AS stream_id, task.contextId AS context_id, "
         "task.taskId AS task_id FROM COMPUTE_TASK_INFO t JOIN TASK task ON t.globalTaskId = "
         "task.globalTaskId";
}

const char* kPmuSql =
    "SELECT p.globalTaskId, s.value AS name, p.value FROM TASK_PMU_INFO p "
    "JOIN STRING_IDS s ON s.id = p.name";

// Each communication op whose connection's tasks ran on one device and model.
const char* kCommunicationSql =
    "SELECT (SELECT value FROM STRING_IDS WHERE id = c.opName) AS op_name, "
    "(SELECT value FROM STRING_IDS WHERE id = c.opType) AS op_type, c.startNs AS "
    "task_start_time, c.endNs AS task_end_time, c.endNs - c.startNs AS task_duration, "
    "c.connectionId, t.deviceId AS device_id, t.modelId AS model_id, 'COMMUNICATION' AS task_type "
    "FROM COMMUNICATION_OP c JOIN (SELECT connectionId, deviceId, modelId FROM TASK GROUP BY "
    "connectionId HAVING COUNT(DISTINCT deviceId) = 1 AND COUNT(DISTINCT modelId) = 1) t "
    "ON c.connectionId = t.connectionId";

const char* kScheduleSql =
    "SELECT (SELECT value FROM STRING_IDS WHERE id = s.name) AS op_name, "
    "(SELECT value FROM STRING_IDS WHERE id = s.opType) AS op_type, "
    "(SELECT value FROM STRING_IDS WHERE id = s.taskType) AS task_type, "
    "task.startNs AS task_start_time, task.endNs AS task_end_time, "
    "task.endNs - task.startNs AS task_duration, task.deviceId AS device_id, "
    "task.modelId AS model_id, task.streamId AS stream_id, task.contextId AS context_id, "
    "task.taskId AS task_id FROM COMMUNICATION_SCHEDULE_TASK_INFO s "
    "JOIN TASK task ON task.globalTaskId = s.globalTaskId";

enum class Kind { kInt, kFloat, kObject };

// One DataFrame as pandas holds it: each column's dtype and cells (NaN as a NULL cell).
struct Df {
  bool exists = false;  // false: pd.DataFrame() (no columns), dropped by pd.concat
  std::vector<std::string> names;
  std::vector<Kind> kinds;
  std::vector<std::vector<Cell>> cols;
  size_t rows() const { return cols.empty() ? 0 : cols[0].size(); }
  int find(const std::string& n) const {
    auto it = std::find(names.begin(), names.end(), n);
    return it == names.end() ? -1 : static_cast<int>(it - names.begin());
  }
  void add(std::string n, Kind k, std::vector<Cell> c) {
    names.push_back(std::move(n));
    kinds.push_back(k);
    cols.push_back(std::move(c));
  }
};

// pandas.read_sql's dtype of a result column: all ints int64; numbers (NULL as NaN) float64;
// texts, all-NULL or no rows object.
Kind read_sql_kind(const std::vector<Cell>& cells) {
  bool num = false, real = false, null = false;
  for (const Cell& c : cells) {
    if (c.kind == Cell::Kind::kText) return Kind::kObject;
    num = num || c.is_number();
    real = real || c.kind == Cell::Kind::kReal;
    null = null || c.is_null();
  }
  if (!num) return Kind::kObject;
  return real || null ? Kind::kFloat : Kind::kInt;
}

// Runs `sql` when every table exists (else pd.DataFrame(), as msprof-analyze's _execute_sql),
// answered by `scan` when it gives the rows (answer_query, as `name`).
bool read(recipes::RankDb& db, const std::string& sql, const std::vector<const char*>& tables,
          Df& out, io::Diagnostics& diag, const char* name = nullptr,
          const std::function<bool(frame::Frame&)>& scan = nullptr) {
  for (const char* t : tables)
    if (!db.has_table(t)) return true;
  frame::Frame f;
  const auto by_sql = [&] { return db.query(sql, {}, f, tables.front(), diag); };
  if (!(scan ? answer_query(
                   name, [&] { return scan(f); }, by_sql)
             : by_sql()))
    return false;
  out.exists = true;
  for (auto& c : f.columns) {
    const Kind k = read_sql_kind(c.cells);
    out.add(c.name, k, std::move(c.cells));
  }
  return true;
}

bool has_column(const recipes::RankDb& db, const char* table, const char* column) {
  const auto cols = db.columns(table);
  return std::find(cols.begin(), cols.end(), column) != cols.end();
}

// basic.merge(pmu.pivot_table(index=globalTaskId, columns=name, values=value, aggfunc=first),
// how=left).fillna(0): the counters' names sorted, a task without one 0.
void add_counters(Df& basic, const Df& pmu) {
  const int task_col = basic.find("globalTaskId");
  if (task_col < 0 || pmu.cols.size() < 3) return;
  std::map<std::string, std::map<int64_t, Cell>> by_name;  // first non-null value per task
  bool real_values = pmu.kinds[2] != Kind::kInt;
  for (size_t r = 0; r < pmu.rows(); ++r) {
    const Cell& name = pmu.cols[1][r];
    const Cell& value = pmu.cols[2][r];
    if (name.kind != Cell::Kind::kText || value.is_null() || !pmu.cols[0][r].is_number()) continue;
    by_name[name.str()].emplace(pmu.cols[0][r].i(), value);
  }
  for (auto& col : basic.cols)
    for (Cell& c : col)
      if (c.is_null()) c = Cell::integer(0);
  for (const auto& [name, values] : by_name) {
    std::vector<Cell> cells;
    bool missing = false;
    for (const Cell& task : basic.cols[static_cast<size_t>(task_col)]) {
      auto it = values.find(task.i());
      missing = missing || it == values.end();
      cells.push_back(it == values.end() ? Cell::integer(0) : it->second);
    }
    const Kind k = missing || real_values ? Kind::kFloat : Kind::kInt;
    if (k == Kind::kFloat)
      for (Cell& c : cells) c = Cell::real(c.num());
    basic.add(name, k, std::move(cells));
  }
}

// pd.concat(frames, ignore_index=True) with pandas 1.5's dtype rules: a frame lacking a column
// makes an int64 column float64; a frame without rows does not decide the dtype.
Df concat(const std::vector<const Df*>& in) {
  std::vector<const Df*> kept;
  for (const Df* d : in)
    if (d->exists && (d->rows() > 0 || !d->names.empty())) kept.push_back(d);
  Df out;
  out.exists = true;
  for (const Df* d : kept)
    for (const auto& n : d->names)
      if (out.find(n) < 0) out.add(n, Kind::kInt, {});
  for (size_t c = 0; c < out.names.size(); ++c) {
    bool has_none = false, any = false, fl = false, obj = false;
    for (int pass = 0; pass < 2 && !any; ++pass)
      for (const Df* d : kept) {
        const int at = d->find(out.names[c]);
        if (at < 0) {
          has_none = true;
          continue;
        }
        if (pass == 0 && d->rows() == 0) continue;
        any = true;
        fl = fl || d->kinds[static_cast<size_t>(at)] == Kind::kFloat;
        obj = obj || d->kinds[static_cast<size_t>(at)] == Kind::kObject;
      }
    Kind k = obj ? Kind::kObject : fl ? Kind::kFloat : Kind::kInt;
    if (has_none && k == Kind::kInt) k = Kind::kFloat;
    out.kinds[c] = k;
    for (const Df* d : kept) {
      const int at = d->find(out.names[c]);
      for (size_t r = 0; r < d->rows(); ++r) {
        Cell v = at < 0 ? Cell::null() : d->cols[static_cast<size_t>(at)][r];
        if (k == Kind::kFloat) v = v.is_number() ? Cell::real(v.num()) : Cell::real(NAN);
        out.cols[c].push_back(v);
      }
    }
  }
  return out;
}

bool is_nan(const Cell& c) {
  return c.is_null() || (c.kind == Cell::Kind::kReal && std::isnan(c.num()));
}

// KernelDetailsExport._post_process on the three frames.
frame::Frame kernel_details(const Df& compute, const Df& communication, const Df& schedule) {
  Df all = concat({&compute, &communication, &schedule});
  const int start = all.find("task_start_time"), end = all.find("task_end_time");
  const size_t n = all.rows();
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  if (start >= 0) {
    const auto& s = all.cols[static_cast<size_t>(start)];
    const bool ints = all.kinds[static_cast<size_t>(start)] == Kind::kInt;
    std::vector<size_t> valid, nan;
    for (size_t i = 0; i < n; ++i) (is_nan(s[i]) ? nan : valid).push_back(i);
    const auto sorted = frame::pandas_sort_order(
        valid.size(),
        [&](size_t a, size_t b) {
          const Cell &x = s[valid[a]], &y = s[valid[b]];
          return ints ? x.i() < y.i() : x.num() < y.num();
        },
        true);
    order.clear();
    for (size_t i : sorted) order.push_back(valid[i]);
    order.insert(order.end(), nan.begin(), nan.end());
  }
  for (auto& col : all.cols) {
    std::vector<Cell> sorted;
    sorted.reserve(n);
    for (size_t i : order) sorted.push_back(col[i]);
    col = std::move(sorted);
  }
  // fillna("N/A"): a float column with NaN becomes object.
  for (size_t c = 0; c < all.cols.size(); ++c) {
    bool filled = false;
    for (Cell& v : all.cols[c])
      if (is_nan(v)) {
        v = Cell::text("N/A");
        filled = true;
      }
    if (filled) all.kinds[c] = Kind::kObject;
  }
  // task_wait_time: this end minus the previous start (float64), 0 for the first frame's first
  // row, NaN for the first row by start time.
  std::vector<Cell> wait(n, Cell::real(NAN));
  if (start >= 0 && end >= 0)
    for (size_t i = 1; i < n; ++i) {
      const Cell &e = all.cols[static_cast<size_t>(end)][i],
                 &p = all.cols[static_cast<size_t>(start)][i - 1];
      if (e.is_number() && p.is_number()) wait[i] = Cell::real(e.num() - p.num());
    }
  for (size_t i = 0; i < n; ++i)
    if (order[i] == 0) wait[i] = Cell::real(0);
  all.add("task_wait_time", Kind::kFloat, std::move(wait));
  frame::Frame out;
  for (size_t c = 0; c < all.names.size(); ++c) {
    std::string name = all.names[c];
    if (name == "task_end_time" || name == "globalTaskId" || name == "connectionId") continue;
    std::vector<Cell>& cells = all.cols[c];
    if (name.find("time") != std::string::npos || name == "task_duration")
      for (Cell& v : cells) {
        if (v.kind == Cell::Kind::kInt)
          v = Cell::real(python_true_divide(v.i(), 1000));
        else if (v.kind == Cell::Kind::kReal)
          v = Cell::real(v.num() / 1000);
      }
    if (name == "aiv_total_time") name = "aiv_time";
    if (name == "aic_total_time") name = "aicore_time";
    auto& col = out.add(name);
    col.cells = std::move(cells);
    col.force_object = all.kinds[c] == Kind::kObject;
  }
  return out;
}

}  // namespace

double python_true_divide(int64_t x, int64_t d) {
  const double guess = static_cast<double>(x) / static_cast<double>(d);
  constexpr int64_t kExact = int64_t{1} << 53;
  if ((x > -kExact && x < kExact && d > -kExact && d < kExact) || !std::isfinite(guess) ||
      guess == 0)
    return guess;
  // The candidate c = m * 2^e nearest x / d: |m * d - x * 2^-e| smallest, ties to even m.
  auto mantissa = [](double c, int& e) {
    const double frac = std::frexp(c, &e);
    e -= 53;
    return static_cast<int64_t>(std::ldexp(frac, 53));
  };
  auto error = [&](double c) {
    int e = 0;
    const __int128 m = mantissa(c, e);
    const __int128 lhs = m * d;
    const __int128 rhs = e < 0 ? static_cast<__int128>(x) << -e : static_cast<__int128>(x);
    const __int128 scaled = e < 0 ? lhs : lhs << e;
    const __int128 diff = scaled - rhs;
    return diff < 0 ? -diff : diff;
  };
  double best = guess;
  for (double c : {std::nextafter(guess, -INFINITY), std::nextafter(guess, INFINITY)}) {
    const auto eb = error(best), ec = error(c);
    int e = 0;
    if (ec < eb || (ec == eb && mantissa(c, e) % 2 == 0)) best = c;
  }
  return best;
}

bool ExportSummary::map(const RankDbPaths& paths, frame::FrameSet& out,
                        io::Diagnostics& diag) const {
  recipes::RankDb db(paths.profiler_db, diag);
  if (!db.ok()) return false;
  Df api, compute, pmu, communication, schedule;
  RankStrings strings(db.database());
  if (!read(db, kApiSql, {"CANN_API", "STRING_IDS", "TASK"}, api, diag,
            "export_summary.api_statistic", [&](frame::Frame& f) {
              return scan_api_statistic(db.database(), kApiSql, strings, f);
            }))
    return false;
  if (db.has_table("COMPUTE_TASK_INFO")) {
    const bool block_num = has_column(db, "COMPUTE_TASK_INFO", "blockNum");
    const bool op_state = has_column(db, "COMPUTE_TASK_INFO", "opState");
    const std::string sql = compute_sql(block_num, op_state);
    if (!read(db, sql, {"COMPUTE_TASK_INFO", "STRING_IDS", "TASK"}, compute, diag,
              "export_summary.compute_tasks",
              [&](frame::Frame& f) {
                return scan_compute_tasks(db.database(), sql, block_num, op_state, strings, f);
              }) ||
        !read(db, kPmuSql, {"TASK_PMU_INFO", "STRING_IDS"}, pmu, diag))
      return false;
    if (compute.rows() > 0 && pmu.rows() > 0) add_counters(compute, pmu);
  }
  if (!read(db, kCommunicationSql, {"COMMUNICATION_OP", "TASK"}, communication, diag,
            "export_summary.communication_ops",
            [&](frame::Frame& f) {
              return scan_communication_ops(db.database(), kCommunicationSql, strings, f);
            }) ||
      !read(db, kScheduleSql, {"COMMUNICATION_SCHEDULE_TASK_INFO", "TASK"}, schedule, diag))
    return false;
  const bool kernels = compute.rows() + communication.rows() + schedule.rows() > 0;
  if (api.rows() == 0 && !kernels) {
    diag.warn(paths.profiler_db, 0, "no API statistic and no compute or communication task",
              "this rank is skipped (it has no data for this recipe)");
    return false;
  }
  frame::Frame& where = out["where"];
  where.add("dir").push_back(Cell::text(std::filesystem::path(paths.rank_dir).filename().string()));
  frame::Frame& a = out["api"];
  for (size_t c = 0; c < api.names.size(); ++c) {
    auto& col = a.add(api.names[c]);
    col.cells = std::move(api.cols[c]);
    col.force_object = api.kinds[c] == Kind::kObject;
  }
  if (kernels) out["kernel"] = kernel_details(compute, communication, schedule);
  return true;
}

bool ExportSummary::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                           io::Diagnostics& diag) const {
  bool ok = true;
  for (const auto& p : parts) {
    if (!p.used) continue;
    const std::string dir = out.cluster_output_dir + "/" + dir_name() + "/" +
                            p.frames.at("where").columns[0].cells[0].str();
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      diag.error(dir, 0, "cannot create the directory: " + ec.message(), "choose another -o");
      ok = false;
      continue;
    }
    if (p.frames.at("api").rows() > 0)
      ok = recipes::write_frame_csv(p.frames.at("api"), dir + "/api_statistic.csv", diag) && ok;
    if (auto it = p.frames.find("kernel"); it != p.frames.end() && it->second.rows() > 0)
      ok = recipes::write_frame_csv(it->second, dir + "/kernel_details.csv", diag) && ok;
  }
  return ok;
}

}  // namespace cs::recipes::export_summary
