#include "msprof_analyze/recipes/export_summary/export_summary_scan.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "db/query_plan.h"
#include "msprof_analyze/recipes/table_scan.h"

namespace cs::recipes::export_summary {

namespace {

using frame::Cell;

const char* kLookup = "SEARCH STRING_IDS USING INTEGER PRIMARY KEY (rowid=?)";

// "CORRELATED SCALAR SUBQUERY k" and its STRING_IDS lookup, for k = 1..n, after `head`.
std::vector<std::string> with_lookups(std::vector<std::string> head, int n) {
  for (int k = 1; k <= n; ++k) {
    head.push_back("CORRELATED SCALAR SUBQUERY " + std::to_string(k));
    head.push_back(kLookup);
  }
  return head;
}

// endNs - startNs as SQLite computes it for integers or NULLs; false for anything else or an
// overflow (SQLite would give a real).
bool duration(const TableScan& s, int start, int end, Cell& out) {
  if (!s.is_int_or_null(start) || !s.is_int_or_null(end)) return false;
  if (!s.is_int(start) || !s.is_int(end)) {
    out = Cell::null();
    return true;
  }
  int64_t d = 0;
  if (__builtin_sub_overflow(s.integer(end), s.integer(start), &d)) return false;
  out = Cell::integer(d);
  return true;
}

// The texts COMPUTE_TASK_INFO's string ids name, in the query's column order.
constexpr const char* kTextColumns[] = {
    "name",           "opType",       "taskType",      "inputFormats",    "inputShapes",
    "inputDataTypes", "outputShapes", "outputFormats", "outputDataTypes", "opState"};
constexpr const char* kTextNames[] = {
    "op_name",          "op_type",       "task_type",      "input_formats",     "input_shapes",
    "input_data_types", "output_shapes", "output_formats", "output_data_types", "op_state"};

// One COMPUTE_TASK_INFO row: its key, blockDim and mixBlockDim as stored, its texts.
struct ComputeRow {
  int64_t task_id;
  Cell block, mix_block;
  std::vector<Cell> texts;
};

}  // namespace

bool scan_api_statistic(const db::Database& db, const std::string& sql, RankStrings& strings,
                        frame::Frame& out) {
  if (!db::query_plan_is(db, sql,
                         {"SCAN t", "SEARCH c USING INTEGER PRIMARY KEY (rowid=?)",
                          "SEARCH s USING INTEGER PRIMARY KEY (rowid=?)",
                          "USE TEMP B-TREE FOR GROUP BY", "USE TEMP B-TREE FOR ORDER BY"}))
    return false;
  const StringCells* texts = strings.get();
  if (!texts) return false;
  std::vector<std::pair<int64_t, Cell>> apis;  // CANN_API: connectionId -> name text
  {
    TableScan s(db, "SELECT connectionId, name FROM CANN_API");
    if (!s.ok()) return false;
    int rc;
    while ((rc = s.next()) == 1) {
      if (!s.is_int(0) || !s.is_int_or_null(1)) return false;
      if (!s.is_int(1)) continue;  // a NULL name joins nothing
      Cell name = texts->find(s.integer(1));
      if (name.kind != Cell::Kind::kText) return false;
      apis.emplace_back(s.integer(0), std::move(name));
    }
    if (rc != 0) return false;
    std::sort(apis.begin(), apis.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  struct Stat {
    Cell name;
    int64_t total = 0, count = 0, min = 0, max = 0, magnitude = 0;
  };
  std::unordered_map<std::string_view, Stat> stats;
  constexpr int64_t kExact = int64_t{1} << 53;
  TableScan s(db, "SELECT startNs, endNs, connectionId FROM TASK");
  if (!s.ok()) return false;
  int rc;
  while ((rc = s.next()) == 1) {
    if (!s.is_int_or_null(2)) return false;
    if (!s.is_int(2)) continue;
    auto api = std::lower_bound(apis.begin(), apis.end(), s.integer(2),
                                [](const auto& a, int64_t k) { return a.first < k; });
    if (api == apis.end() || api->first != s.integer(2)) continue;
    Cell d;
    if (!duration(s, 0, 1, d) || d.is_null()) return false;
    const int64_t v = d.i();
    Stat& st = stats[api->second.str()];
    if (st.count == 0) {
      st.name = api->second;
      st.min = st.max = v;
    }
    ++st.count;
    st.min = std::min(st.min, v);
    st.max = std::max(st.max, v);
    st.total += v;  // |total| <= magnitude < 2^53: no overflow
    st.magnitude += v < 0 ? -v : v;
    if (v <= -kExact || v >= kExact || st.magnitude >= kExact) return false;
  }
  if (rc != 0) return false;
  std::vector<const Stat*> order;
  for (const auto& [_, st] : stats) order.push_back(&st);
  std::sort(order.begin(), order.end(),
            [](const Stat* a, const Stat* b) { return a->total > b->total; });
  for (size_t i = 1; i < order.size(); ++i)
    if (order[i]->total == order[i - 1]->total) return false;
  frame::Frame f;
  auto& name = f.add("API Name");
  auto& total = f.add("Total Time(ns)");
  auto& count = f.add("Count");
  auto& avg = f.add("Avg Time(ns)");
  auto& min = f.add("Min Time(ns)");
  auto& max = f.add("Max Time(ns)");
  for (const Stat* st : order) {
    name.push_back(st->name);
    total.push_back(Cell::integer(st->total));
    count.push_back(Cell::integer(st->count));
    avg.push_back(Cell::real(static_cast<double>(st->total) / static_cast<double>(st->count)));
    min.push_back(Cell::integer(st->min));
    max.push_back(Cell::integer(st->max));
  }
  out = std::move(f);
  return true;
}

bool scan_compute_tasks(const db::Database& db, const std::string& sql, bool block_num,
                        bool op_state, RankStrings& strings, frame::Frame& out) {
  const int n_texts = op_state ? 10 : 9;
  if (!db::query_plan_is(
          db, sql,
          with_lookups({"SCAN task", "SEARCH t USING INTEGER PRIMARY KEY (rowid=?)"}, n_texts)))
    return false;
  const StringCells* texts = strings.get();
  if (!texts) return false;
  std::vector<ComputeRow> tasks;
  {
    std::string select = std::string("SELECT globalTaskId, ") +
                         (block_num ? "blockNum, mixBlockNum" : "blockDim, mixBlockDim");
    for (int k = 0; k < n_texts; ++k) select += std::string(", ") + kTextColumns[k];
    TableScan s(db, select + " FROM COMPUTE_TASK_INFO");
    if (!s.ok()) return false;
    int rc;
    while ((rc = s.next()) == 1) {
      if (!s.is_int(0)) return false;  // the integer primary key: never anything else
      ComputeRow r{s.integer(0), s.cell(1), s.cell(2), {}};
      r.texts.reserve(static_cast<size_t>(n_texts));
      for (int k = 0; k < n_texts; ++k) {
        if (!s.is_int_or_null(3 + k)) return false;
        r.texts.push_back(s.is_int(3 + k) ? texts->find(s.integer(3 + k)) : Cell::null());
      }
      tasks.push_back(std::move(r));
    }
    if (rc != 0) return false;
    std::sort(tasks.begin(), tasks.end(),
              [](const ComputeRow& a, const ComputeRow& b) { return a.task_id < b.task_id; });
  }
  frame::Frame f;
  std::vector<frame::FrameColumn*> text(static_cast<size_t>(n_texts));
  text[0] = &f.add(kTextNames[0]);
  auto& task_id = f.add("globalTaskId");
  auto& block = f.add("block_dim");
  auto& mix_block = f.add("mix_block_dim");
  for (int k = 1; k < n_texts; ++k) text[static_cast<size_t>(k)] = &f.add(kTextNames[k]);
  const char* task_names[] = {"task_start_time", "task_end_time", "task_duration", "device_id",
                              "model_id",        "stream_id",     "context_id",    "task_id"};
  std::vector<frame::FrameColumn*> task_cols;
  for (const char* n : task_names) task_cols.push_back(&f.add(n));
  TableScan s(db,
              "SELECT startNs, endNs, globalTaskId, deviceId, modelId, streamId, contextId, "
              "taskId FROM TASK");
  if (!s.ok()) return false;
  int rc;
  while ((rc = s.next()) == 1) {
    if (!s.is_int_or_null(2)) return false;
    if (!s.is_int(2)) continue;  // NULL joins nothing
    auto it = std::lower_bound(tasks.begin(), tasks.end(), s.integer(2),
                               [](const ComputeRow& r, int64_t key) { return r.task_id < key; });
    if (it == tasks.end() || it->task_id != s.integer(2)) continue;
    Cell d;
    if (!duration(s, 0, 1, d)) return false;
    for (int k = 0; k < n_texts; ++k)
      text[static_cast<size_t>(k)]->push_back(it->texts[static_cast<size_t>(k)]);
    task_id.push_back(Cell::integer(it->task_id));
    block.push_back(it->block);
    mix_block.push_back(it->mix_block);
    const Cell row[] = {s.cell(0), s.cell(1), d,         s.cell(3),
                        s.cell(4), s.cell(5), s.cell(6), s.cell(7)};
    for (size_t c = 0; c < task_cols.size(); ++c) task_cols[c]->push_back(row[c]);
  }
  if (rc != 0) return false;
  out = std::move(f);
  return true;
}

bool scan_communication_ops(const db::Database& db, const std::string& sql, RankStrings& strings,
                            frame::Frame& out) {
  if (!db::query_plan_is(db, sql,
                         with_lookups({"MATERIALIZE t", "SCAN TASK", "USE TEMP B-TREE FOR GROUP BY",
                                       "USE TEMP B-TREE FOR count(DISTINCT)",
                                       "USE TEMP B-TREE FOR count(DISTINCT)", "SCAN c",
                                       "SEARCH t USING AUTOMATIC COVERING INDEX (connectionId=?)"},
                                      2)))
    return false;
  // TASK grouped by connectionId: its distinct devices and models, and whether it has NULLs.
  struct Group {
    int64_t device = 0, model = 0;
    int devices = 0, models = 0;
    bool nulls = false;
  };
  std::unordered_map<int64_t, Group> groups;
  {
    TableScan s(db, "SELECT connectionId, deviceId, modelId FROM TASK");
    if (!s.ok()) return false;
    int rc;
    while ((rc = s.next()) == 1) {
      for (int c = 0; c < 3; ++c)
        if (!s.is_int_or_null(c)) return false;
      if (!s.is_int(0)) continue;  // the NULL group joins nothing
      Group& g = groups[s.integer(0)];
      for (auto [col, value, count] :
           {std::tuple{1, &g.device, &g.devices}, std::tuple{2, &g.model, &g.models}}) {
        if (!s.is_int(col)) {
          g.nulls = true;
        } else if (*count == 0) {
          *value = s.integer(col);
          *count = 1;
        } else if (*value != s.integer(col)) {
          *count = 2;  // more than one: the group is dropped
        }
      }
    }
    if (rc != 0) return false;
  }
  const StringCells* texts = strings.get();
  if (!texts) return false;
  frame::Frame f;
  const char* names[] = {"op_name",       "op_type",       "task_start_time",
                         "task_end_time", "task_duration", "connectionId",
                         "device_id",     "model_id",      "task_type"};
  std::vector<frame::FrameColumn*> cols;
  for (const char* n : names) cols.push_back(&f.add(n));
  const Cell communication = Cell::text("COMMUNICATION");
  TableScan s(db, "SELECT opName, opType, startNs, endNs, connectionId FROM COMMUNICATION_OP");
  if (!s.ok()) return false;
  int rc;
  while ((rc = s.next()) == 1) {
    if (!s.is_int_or_null(0) || !s.is_int_or_null(1) || !s.is_int_or_null(4)) return false;
    Cell d;
    if (!duration(s, 2, 3, d)) return false;
    if (!s.is_int(4)) continue;
    auto it = groups.find(s.integer(4));
    if (it == groups.end()) continue;
    const Group& g = it->second;
    if (g.devices != 1 || g.models != 1) continue;  // HAVING COUNT(DISTINCT ...) = 1
    if (g.nulls) return false;
    const Cell row[] = {s.is_int(0) ? texts->find(s.integer(0)) : Cell::null(),
                        s.is_int(1) ? texts->find(s.integer(1)) : Cell::null(),
                        s.cell(2),
                        s.cell(3),
                        d,
                        s.cell(4),
                        Cell::integer(g.device),
                        Cell::integer(g.model),
                        communication};
    for (size_t c = 0; c < cols.size(); ++c) cols[c]->push_back(row[c]);
  }
  if (rc != 0) return false;
  out = std::move(f);
  return true;
}

}  // namespace cs::recipes::export_summary
