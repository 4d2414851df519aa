#include "msprof_analyze/recipes/cluster_time_summary/cluster_time_summary_scan.h"

#include <algorithm>
#include <unordered_set>

#include "msprof_analyze/recipes/table_scan.h"

namespace cs::recipes::cluster_time_summary {

namespace {

// SQLite's plans for the two queries on the profilers' schema (STEP_TIME present). The row order
// reproduced below is these plans' order; any other plan: run the SQL.
const std::vector<std::string> kCommunicationPlan = {
    "SCAN COMMUNICATION_OP",
    "SEARCH CANN_API USING INTEGER PRIMARY KEY (rowid=?)",
    "SEARCH si_group USING INTEGER PRIMARY KEY (rowid=?)",
    "SEARCH si_op USING INTEGER PRIMARY KEY (rowid=?)",
    "SCAN RANK_DEVICE_MAP",
    "SCAN step_time LEFT-JOIN"};

const std::vector<std::string> kOverlapPlan = {
    "MERGE (UNION ALL)",
    "LEFT",
    "MERGE (UNION ALL)",
    "LEFT",
    "SCAN TASK USING INDEX TaskIndex",
    "SEARCH CANN_API USING INTEGER PRIMARY KEY (rowid=?)",
    "SEARCH COMPUTE_TASK_INFO USING INTEGER PRIMARY KEY (rowid=?)",
    "SCAN step_time LEFT-JOIN",
    "USE TEMP B-TREE FOR RIGHT PART OF ORDER BY",
    "RIGHT",
    "SCAN COMMUNICATION_OP",
    "SEARCH CANN_API USING INTEGER PRIMARY KEY (rowid=?)",
    "SCAN step_time LEFT-JOIN",
    "USE TEMP B-TREE FOR ORDER BY",
    "RIGHT",
    "SEARCH TASK USING INDEX TaskIndex (startNs>? AND startNs<?)",
    "SCALAR SUBQUERY 3",
    "SCAN STRING_IDS",
    "SCAN step_time LEFT-JOIN",
    "USE TEMP B-TREE FOR RIGHT PART OF ORDER BY"};

// The query's part each overlap row comes from, as its `type` column: compute 0, communication
// 1, memory copy 4 — also the order of rows with equal (start, end): SQLite merges the sorted
// parts of the UNION ALL taking the left one first on equal keys.
constexpr int64_t kComputeRows = 0, kCommunicationRows = 1, kMemoryRows = 4;

// A NULL start or end (has_* false) sorts before every number, as in SQLite.
struct OverlapRow {
  bool has_start, has_end;
  int64_t start, end, type, api;
};

bool before(bool has_a, int64_t a, bool has_b, int64_t b) {
  if (has_a != has_b) return !has_a;
  return has_a && a < b;
}

}  // namespace

bool TimeSummaryScan::load_cann() {
  if (cann_) return true;
  TableScan s(db_, "SELECT connectionId, startNs FROM CANN_API");
  if (!s.ok()) return false;
  std::unordered_map<int64_t, std::optional<int64_t>> m;
  int rc;
  while ((rc = s.next()) == 1) {
    if (!s.is_int(0) || !s.is_int_or_null(1)) return false;
    m.emplace(s.integer(0), s.is_int(1) ? std::optional<int64_t>(s.integer(1)) : std::nullopt);
  }
  if (rc != 0) return false;
  cann_ = std::move(m);
  return true;
}

bool TimeSummaryScan::load_steps() {
  if (steps_) return true;
  TableScan s(db_, "SELECT id, startNs, endNs FROM STEP_TIME NOT INDEXED");
  if (!s.ok()) return false;
  std::vector<Step> v;
  int rc;
  while ((rc = s.next()) == 1) {
    if (!s.is_int_or_null(0) || !s.is_int_or_null(1) || !s.is_int_or_null(2)) return false;
    v.push_back({s.cell(0), s.is_int(1) && s.is_int(2), s.integer(1), s.integer(2)});
  }
  if (rc != 0) return false;
  steps_ = std::move(v);
  return true;
}

void TimeSummaryScan::steps_of(int64_t t, std::vector<const frame::Cell*>& ids) const {
  static const frame::Cell kNull;
  ids.clear();
  for (const Step& s : *steps_)
    if (s.has_range && t >= s.start && t <= s.end) ids.push_back(&s.id);
  if (ids.empty()) ids.push_back(&kNull);
}

bool TimeSummaryScan::communication(const std::string& sql, int64_t lo, int64_t hi,
                                    frame::Frame& out) {
  if (!db::query_plan_is(db_, sql, kCommunicationPlan) || !load_cann() || !load_steps())
    return false;
  int rc;
  std::unordered_map<int64_t, frame::Cell> strings;
  {
    TableScan s(db_, "SELECT id, value FROM STRING_IDS");
    if (!s.ok()) return false;
    while ((rc = s.next()) == 1) {
      if (!s.is_int(0)) return false;
      strings.emplace(s.integer(0), s.cell(1));
    }
    if (rc != 0) return false;
  }
  std::vector<frame::Cell> ranks;
  {
    TableScan s(db_, "SELECT rankId FROM RANK_DEVICE_MAP NOT INDEXED");
    if (!s.ok()) return false;
    while ((rc = s.next()) == 1) ranks.push_back(s.cell(0));
    if (rc != 0) return false;
  }
  frame::Frame f;
  auto& rank = f.add("rank");
  auto& group = f.add("groupName");
  auto& op = f.add("opName");
  auto& time = f.add("communication_time");
  auto& step = f.add("step");
  TableScan s(db_,
              "SELECT opName, startNs, endNs, connectionId, groupName FROM COMMUNICATION_OP "
              "NOT INDEXED");
  if (!s.ok()) return false;
  std::vector<const frame::Cell*> ids;
  while ((rc = s.next()) == 1) {
    for (int c : {0, 1, 2, 3, 4})
      if (!s.is_int_or_null(c)) return false;
    if (!s.is_int(3) || !s.is_int(4) || !s.is_int(0)) continue;  // NULL keys join nothing
    const auto api = cann_->find(s.integer(3));
    if (api == cann_->end() || !api->second || *api->second < lo || *api->second > hi) continue;
    const auto g = strings.find(s.integer(4));
    const auto o = strings.find(s.integer(0));
    if (g == strings.end() || o == strings.end()) continue;
    frame::Cell t;  // (endNs - startNs) / 1000.0; NULL when either is NULL
    if (s.is_int(1) && s.is_int(2)) {
      int64_t d = 0;
      if (__builtin_sub_overflow(s.integer(2), s.integer(1), &d)) return false;
      t = frame::Cell::real(static_cast<double>(d) / 1000.0);
    }
    steps_of(*api->second, ids);
    for (const frame::Cell& r : ranks)
      for (const frame::Cell* id : ids) {
        rank.push_back(r);
        group.push_back(g->second);
        op.push_back(o->second);
        time.push_back(t);
        step.push_back(*id);
      }
  }
  if (rc != 0) return false;
  out = std::move(f);
  return true;
}

namespace {

// The scalar subquery (SELECT id FROM STRING_IDS WHERE value = '<text>'): the first matching
// row's id, NULL (nullopt) when none; false when it cannot be told (an id neither an integer nor
// NULL). From the file's pages the table is read in rowid order and compared byte for byte, as
// SQLite compares a TEXT column (an index on value lists equal values in rowid order too);
// otherwise SQLite runs the query.
bool first_string_id(const db::Database& db, std::string_view text, std::optional<int64_t>& out) {
  out.reset();
  int rc;
  {
    TableScan s(db, "SELECT id, value FROM STRING_IDS");
    if (s.paged()) {
      while ((rc = s.next()) == 1) {
        if (s.type(1) != SQLITE_TEXT || s.text_view(1) != text) continue;
        if (!s.is_int_or_null(0)) return false;
        if (s.is_int(0)) out = s.integer(0);
        return true;
      }
      return rc == 0;
    }
  }
  TableScan s(db, "SELECT id FROM STRING_IDS WHERE value='" + std::string(text) + "'");
  if (!s.ok()) return false;
  rc = s.next();
  if (rc < 0 || (rc == 1 && !s.is_int_or_null(0))) return false;
  if (rc == 1 && s.is_int(0)) out = s.integer(0);
  return true;
}

}  // namespace

bool TimeSummaryScan::overlap(const std::string& sql, int64_t lo, int64_t hi, frame::Frame& out) {
  if (!db::query_plan_is(db_, sql, kOverlapPlan) || !load_cann() || !load_steps()) return false;
  int rc;
  std::unordered_set<int64_t> compute;
  {
    TableScan s(db_, "SELECT globalTaskId FROM COMPUTE_TASK_INFO");
    if (!s.ok()) return false;
    while ((rc = s.next()) == 1) {
      if (!s.is_int(0)) return false;
      compute.insert(s.integer(0));
    }
    if (rc != 0) return false;
  }
  std::optional<int64_t> memcpy_type;  // the scalar subquery: the first matching id, or NULL
  if (!first_string_id(db_, "MEMCPY_ASYNC", memcpy_type)) return false;
  std::vector<OverlapRow> rows;
  {
    TableScan s(db_, "SELECT startNs, endNs, connectionId, globalTaskId, taskType FROM TASK");
    if (!s.ok()) return false;
    while ((rc = s.next()) == 1) {
      for (int c : {0, 1, 2, 3, 4})
        if (!s.is_int_or_null(c)) return false;
      const bool has_start = s.is_int(0), has_end = s.is_int(1);
      const int64_t start = s.integer(0), end = s.integer(1);
      // Compute: startNs != endNs (false when either is NULL) and a launch in the range.
      if (s.is_int(3) && compute.count(s.integer(3)) && has_start && has_end && start != end &&
          s.is_int(2))
        if (auto api = cann_->find(s.integer(2));
            api != cann_->end() && api->second && *api->second >= lo && *api->second <= hi)
          rows.push_back({true, true, start, end, kComputeRows, *api->second});
      // Memory copy: its own start is the launch time.
      if (memcpy_type && s.is_int(4) && s.integer(4) == *memcpy_type && has_start && start >= lo &&
          start <= hi)
        rows.push_back({true, has_end, start, end, kMemoryRows, start});
    }
    if (rc != 0) return false;
  }
  {
    TableScan s(db_, "SELECT startNs, endNs, connectionId FROM COMMUNICATION_OP");
    if (!s.ok()) return false;
    while ((rc = s.next()) == 1) {
      if (!s.is_int_or_null(0) || !s.is_int_or_null(1) || !s.is_int_or_null(2)) return false;
      if (!s.is_int(2)) continue;
      if (auto api = cann_->find(s.integer(2));
          api != cann_->end() && api->second && *api->second >= lo && *api->second <= hi)
        rows.push_back({s.is_int(0), s.is_int(1), s.integer(0), s.integer(1), kCommunicationRows,
                        *api->second});
    }
    if (rc != 0) return false;
  }
  std::stable_sort(rows.begin(), rows.end(), [](const OverlapRow& a, const OverlapRow& b) {
    if (before(a.has_start, a.start, b.has_start, b.start)) return true;
    if (before(b.has_start, b.start, a.has_start, a.start)) return false;
    if (before(a.has_end, a.end, b.has_end, b.end)) return true;
    if (before(b.has_end, b.end, a.has_end, a.end)) return false;
    return a.type < b.type;
  });
  frame::Frame f;
  auto& start = f.add("start");
  auto& end = f.add("end");
  auto& type = f.add("type");
  auto& step = f.add("step");
  std::vector<const frame::Cell*> ids;
  for (const OverlapRow& r : rows) {
    steps_of(r.api, ids);
    for (const frame::Cell* id : ids) {
      start.push_back(r.has_start ? frame::Cell::integer(r.start) : frame::Cell::null());
      end.push_back(r.has_end ? frame::Cell::integer(r.end) : frame::Cell::null());
      type.push_back(frame::Cell::integer(r.type));
      step.push_back(*id);
    }
  }
  out = std::move(f);
  return true;
}

}  // namespace cs::recipes::cluster_time_summary
