#include "msprof_analyze/recipes/module_statistic/module_scan.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "db/query_plan.h"
#include "msprof_analyze/recipes/module_statistic/module_queries.h"
#include "msprof_analyze/recipes/table_scan.h"

namespace cs::recipes::module_statistic {

namespace {

// The plans SQLite chooses for the three queries on the profilers' schema; anything else: the SQL.
const std::vector<std::string> kModulesPlan = {
    "SCAN m", "SEARCH name USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN",
    "SEARCH domain USING INTEGER PRIMARY KEY (rowid=?)", "USE TEMP B-TREE FOR ORDER BY"};
const std::vector<std::string> kComputePlan = {
    "SCAN c",
    "SEARCH t USING AUTOMATIC COVERING INDEX (globalTaskId=?) LEFT-JOIN",
    "SEARCH s USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN",
    "SEARCH conn USING AUTOMATIC COVERING INDEX (connectionId=?)",
    "SEARCH api USING AUTOMATIC COVERING INDEX (connectionId=?)",
    "SEARCH op USING INTEGER PRIMARY KEY (rowid=?)",
    "USE TEMP B-TREE FOR ORDER BY"};
const std::vector<std::string> kCommunicationPlan = {
    "SCAN c",
    "SEARCH s USING INTEGER PRIMARY KEY (rowid=?)",
    "SEARCH conn USING AUTOMATIC COVERING INDEX (connectionId=?)",
    "SEARCH api USING AUTOMATIC COVERING INDEX (connectionId=?)",
    "SEARCH op USING INTEGER PRIMARY KEY (rowid=?)",
    "USE TEMP B-TREE FOR ORDER BY"};
const std::vector<std::string> kLinksPlan = {
    "CO-ROUTINE c",
    "SCAN CONNECTION_IDS",
    "USE TEMP B-TREE FOR GROUP BY",
    "SCAN c",
    "SEARCH fwd USING AUTOMATIC COVERING INDEX (connectionId=?) LEFT-JOIN",
    "SEARCH fwd_s USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN",
    "SEARCH bwd USING AUTOMATIC COVERING INDEX (connectionId=?) LEFT-JOIN",
    "USE TEMP B-TREE FOR ORDER BY"};

// A time column's value as stored: an integer, a text (PYTORCH_API's) or NULL. Reals and blobs
// send the rank to the SQL.
struct Time {
  int type = SQLITE_NULL;
  int64_t i = 0;
  std::string t;
};

bool read_time(const TableScan& s, int c, Time& out) {
  out.type = s.type(c);
  if (out.type == SQLITE_INTEGER)
    out.i = s.integer(c);
  else if (out.type == SQLITE_TEXT)
    out.t = s.text(c);
  return out.type == SQLITE_INTEGER || out.type == SQLITE_TEXT || out.type == SQLITE_NULL;
}

// SQLite's order of two values (BINARY collation): NULL, then integers, then texts byte by byte.
int compare(const Time& a, const Time& b) {
  auto rank = [](int type) { return type == SQLITE_NULL ? 0 : type == SQLITE_INTEGER ? 1 : 2; };
  if (rank(a.type) != rank(b.type)) return rank(a.type) < rank(b.type) ? -1 : 1;
  if (a.type == SQLITE_INTEGER) return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
  if (a.type == SQLITE_TEXT) return a.t.compare(b.t);
  return 0;
}

int64_t ns(const Time& v) {
  return v.type == SQLITE_INTEGER ? v.i : v.type == SQLITE_TEXT ? time_ns_text(v.t) : 0;
}

// An integer join key or NULL (has == false); any other storage class: false.
bool read_key(const TableScan& s, int c, bool& has, int64_t& key) {
  has = s.type(c) == SQLITE_INTEGER;
  key = has ? s.integer(c) : 0;
  return has || s.type(c) == SQLITE_NULL;
}

// Sorts pairs by key; false when a key repeats (SQLite's order among its matches is not
// reproduced).
template <class V>
bool sort_unique(std::vector<std::pair<int64_t, V>>& v) {
  sort_by_key(v);
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i].first == v[i - 1].first) return false;
  return true;
}

struct Api {
  Time start, end;
  bool has_name = false;
  int64_t name = 0;
};

struct Task {
  Time start, end;
  bool has_conn = false;
  int64_t conn = 0;
};

// CONNECTION_IDS' rows whose connectionId is NULL (GROUP BY makes them one group): how many, and
// the least and greatest of their ids (has_id false: every id NULL).
struct NullGroup {
  int64_t count = 0;
  bool has_id = false;
  int64_t lo = 0, hi = 0;
};

// Python's str.startswith for SQLite's LIKE 'prefix%' (ASCII letters in any case).
bool like_prefix(const std::string& s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    const auto a = static_cast<unsigned char>(s[i]), b = static_cast<unsigned char>(prefix[i]);
    auto lower = [](unsigned char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; };
    if (lower(a) != lower(b)) return false;
  }
  return true;
}

}  // namespace

// The shared tables, each read once: STRING_IDS, PYTORCH_API (by connectionId), CONNECTION_IDS
// (in its automatic index's order) and TASK (by globalTaskId). A *_ok of false: that read
// declined, and every answer needing it goes to the SQL.
struct ModuleScan::Tables {
  int strings_state = 0, api_state = 0, conn_state = 0, task_state = 0;  // 0 unread, 1 ok, -1 no
  StringCells strings;
  std::vector<std::pair<int64_t, Api>> api;
  std::vector<ConnectionRow> conns;
  NullGroup null_group;
  std::vector<std::pair<int64_t, Task>> tasks;
};

ModuleScan::ModuleScan(const db::Database& db) : db_(db), t_(std::make_unique<Tables>()) {}
ModuleScan::~ModuleScan() = default;

namespace {

bool load_api(const db::Database& db, std::vector<std::pair<int64_t, Api>>& out) {
  TableScan s(db, "SELECT connectionId, startNs, endNs, name FROM PYTORCH_API");
  if (!s.ok()) return false;
  int rc;
  while ((rc = s.next()) == 1) {
    bool has_conn;
    int64_t conn;
    Api a;
    if (!read_key(s, 0, has_conn, conn) || !read_time(s, 1, a.start) || !read_time(s, 2, a.end) ||
        !read_key(s, 3, a.has_name, a.name))
      return false;
    if (has_conn) out.emplace_back(conn, std::move(a));
  }
  return rc == 0 && sort_unique(out);
}

bool load_conns(const db::Database& db, std::vector<ConnectionRow>& out, NullGroup& nulls) {
  return load_connections(db, out, [&](const ConnectionRow& c) {
    ++nulls.count;
    if (c.has_id) {
      nulls.lo = nulls.has_id ? std::min(nulls.lo, c.id) : c.id;
      nulls.hi = nulls.has_id ? std::max(nulls.hi, c.id) : c.id;
      nulls.has_id = true;
    }
  });
}

bool load_tasks(const db::Database& db, std::vector<std::pair<int64_t, Task>>& out) {
  TableScan s(db, "SELECT globalTaskId, startNs, endNs, connectionId FROM TASK");
  if (!s.ok()) return false;
  int rc;
  while ((rc = s.next()) == 1) {
    bool has_id;
    int64_t id;
    Task t;
    if (!read_key(s, 0, has_id, id) || !read_time(s, 1, t.start) || !read_time(s, 2, t.end) ||
        !read_key(s, 3, t.has_conn, t.conn))
      return false;
    if (has_id) out.emplace_back(id, std::move(t));
  }
  return rc == 0 && sort_unique(out);
}

// Runs `load` once; its answer after that.
template <class F>
bool once(int& state, F load) {
  if (state == 0) state = load() ? 1 : -1;
  return state == 1;
}

}  // namespace

bool ModuleScan::modules(std::vector<ModuleRange>& out) {
  if (!db::query_plan_is(db_, kModulesSql, kModulesPlan) ||
      !once(t_->strings_state, [&] { return t_->strings.load(db_); }))
    return false;
  struct Row {
    Time start, end;
    const frame::Cell* name;
  };
  std::vector<Row> rows;
  TableScan s(db_, "SELECT startNs, endNs, eventType, message, domainId FROM MSTX_EVENTS");
  if (!s.ok()) return false;
  int rc;
  while ((rc = s.next()) == 1) {
    bool has_type, has_message, has_domain;
    int64_t type, message, domain;
    Row r;
    if (!read_time(s, 0, r.start) || !read_time(s, 1, r.end) || !read_key(s, 2, has_type, type) ||
        !read_key(s, 3, has_message, message) || !read_key(s, 4, has_domain, domain))
      return false;
    if (!has_type || type != 2 || !has_domain) continue;
    const frame::Cell* d = t_->strings.lookup(domain);
    if (!d) continue;
    if (!d->is_null() && d->kind != frame::Cell::Kind::kText) return false;
    if (d->is_null() || d->str() != "Module") continue;
    r.name = has_message ? t_->strings.lookup(message) : nullptr;
    rows.push_back(std::move(r));
  }
  if (rc != 0) return false;
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return compare(a.start, b.start) < 0; });
  out.clear();
  for (const Row& r : rows)
    out.push_back({ns(r.start), ns(r.end), r.name ? r.name->str() : std::string(), false});
  return true;
}

bool ModuleScan::kernels(const std::string& table, std::vector<KernelRow>& out) {
  const bool communication = table == "COMMUNICATION_OP";
  Tables& t = *t_;
  if (!db::query_plan_is(db_, kernel_query(table),
                         communication ? kCommunicationPlan : kComputePlan) ||
      !once(t.strings_state, [&] { return t.strings.load(db_); }) ||
      !once(t.api_state, [&] { return load_api(db_, t.api); }) ||
      !once(t.conn_state, [&] { return load_conns(db_, t.conns, t.null_group); }) ||
      (!communication && !once(t.task_state, [&] { return load_tasks(db_, t.tasks); })))
    return false;
  // The joined rows in the nested loops' order, then stably sorted by (op_ts, kernel_ts).
  struct Row {
    const frame::Cell* name;
    const Time *kernel_ts, *kernel_end;
    const frame::Cell* op;
    const Api* api;
  };
  std::vector<Row> rows;
  std::vector<Task> own;  // COMMUNICATION_OP's times (kept until the rows are converted)
  auto join_ops = [&](const frame::Cell* name, const Time* ts, const Time* end, bool has_conn,
                      int64_t conn) {
    if (!has_conn) return;
    for (const ConnectionRow& m : connection_matches(t.conns, conn)) {
      if (!m.has_id) continue;
      const Api* api = find_key(t.api, m.id);
      if (!api || !api->has_name) continue;
      const frame::Cell* op = t.strings.lookup(api->name);
      if (op) rows.push_back({name, ts, end, op, api});
    }
  };
  int rc;
  if (communication) {
    TableScan s(db_, "SELECT opType, startNs, endNs, connectionId FROM COMMUNICATION_OP");
    if (!s.ok()) return false;
    std::vector<std::pair<const frame::Cell*, std::pair<bool, int64_t>>> keys;
    while ((rc = s.next()) == 1) {
      bool has_type, has_conn;
      int64_t type, conn;
      Task times;
      if (!read_key(s, 0, has_type, type) || !read_time(s, 1, times.start) ||
          !read_time(s, 2, times.end) || !read_key(s, 3, has_conn, conn))
        return false;
      const frame::Cell* name = has_type ? t.strings.lookup(type) : nullptr;
      if (!name) continue;  // an inner join
      own.push_back(std::move(times));
      keys.push_back({name, {has_conn, conn}});
    }
    if (rc != 0) return false;
    for (size_t i = 0; i < own.size(); ++i)
      join_ops(keys[i].first, &own[i].start, &own[i].end, keys[i].second.first,
               keys[i].second.second);
  } else {
    TableScan s(db_, "SELECT globalTaskId, name FROM " + table);
    if (!s.ok()) return false;
    while ((rc = s.next()) == 1) {
      bool has_id, has_name;
      int64_t id, name_id;
      if (!read_key(s, 0, has_id, id) || !read_key(s, 1, has_name, name_id)) return false;
      const Task* task = has_id ? find_key(t.tasks, id) : nullptr;
      if (!task) continue;  // no TASK row: no connection, no op
      const frame::Cell* name = has_name ? t.strings.lookup(name_id) : nullptr;
      join_ops(name, &task->start, &task->end, task->has_conn, task->conn);
    }
    if (rc != 0) return false;
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    const int c = compare(a.api->start, b.api->start);
    return c != 0 ? c < 0 : compare(*a.kernel_ts, *b.kernel_ts) < 0;
  });
  for (const Row& r : rows)
    out.push_back({r.name ? r.name->str() : std::string(), ns(*r.kernel_ts), ns(*r.kernel_end),
                   r.op->str(), ns(r.api->start), ns(r.api->end)});
  return true;
}

bool ModuleScan::links(std::vector<FwdBwdLink>& out) {
  Tables& t = *t_;
  if (!db::query_plan_is(db_, kFwdBwdSql, kLinksPlan) ||
      !once(t.strings_state, [&] { return t.strings.load(db_); }) ||
      !once(t.api_state, [&] { return load_api(db_, t.api); }) ||
      !once(t.conn_state, [&] { return load_conns(db_, t.conns, t.null_group); }))
    return false;
  out.clear();
  // One group: MIN(id), MAX(id) over its ids (NULLs ignored), kept when it has two rows or more.
  auto emit = [&](int64_t count, bool has_id, int64_t lo, int64_t hi) {
    if (count <= 1 || !has_id) return true;  // lo NULL: no forward op, fwd_s.value NULL
    const Api* fwd = find_key(t.api, lo);
    if (!fwd || !fwd->has_name) return true;
    const frame::Cell* name = t.strings.lookup(fwd->name);
    if (!name || name->is_null()) return true;
    if (name->kind != frame::Cell::Kind::kText) return false;
    if (like_prefix(name->str(), "Enqueue") || like_prefix(name->str(), "Dequeue")) return true;
    const Api* bwd = find_key(t.api, hi);
    out.push_back({name->str(), ns(fwd->start), ns(fwd->end), bwd ? ns(bwd->start) : 0,
                   bwd ? ns(bwd->end) : 0});
    return true;
  };
  // CONNECTION_IDS' rows with a NULL connectionId form one group too, sorted first.
  const NullGroup& g = t.null_group;
  if (!emit(g.count, g.has_id, g.lo, g.hi)) return false;
  for (size_t i = 0; i < t.conns.size();) {
    size_t j = i;
    bool has_id = false;
    int64_t lo = 0, hi = 0;
    for (; j < t.conns.size() && t.conns[j].conn == t.conns[i].conn; ++j)
      if (t.conns[j].has_id) {
        lo = has_id ? std::min(lo, t.conns[j].id) : t.conns[j].id;
        hi = has_id ? std::max(hi, t.conns[j].id) : t.conns[j].id;
        has_id = true;
      }
    if (!emit(static_cast<int64_t>(j - i), has_id, lo, hi)) return false;
    i = j;
  }
  return true;
}

}  // namespace cs::recipes::module_statistic
