// host_input_from_db: the profiler database's host tables to HostInput (see db_host.h).

#include "host/db_host.h"

#include <memory_resource>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "db/profiler_db.h"
#include "db/string_ids.h"
#include "host/device_free.h"

namespace cs::host {

namespace {

// Every row of `sql` (on `table`) to `on_row`; false on a query or read error.
template <typename F>
bool each_row(const db::Database& db, const std::string& sql, std::string_view table,
              io::Diagnostics& diag, F&& on_row) {
  auto st = db.prepare(sql, table, diag);
  if (!st) return false;
  db::StepResult r;
  while ((r = st->step(diag)) == db::StepResult::kRow) on_row(*st);
  return r != db::StepResult::kError;
}

// ENUM_API_TYPE's id of `name` ("op"), or `fallback` (torch_npu's fixed id) without the table.
int64_t api_type(const db::Database& db, std::string_view name, int64_t fallback,
                 io::Diagnostics& diag) {
  if (!db.has_table("ENUM_API_TYPE")) return fallback;
  int64_t id = fallback;
  each_row(db, "SELECT id, name FROM ENUM_API_TYPE", "ENUM_API_TYPE", diag,
           [&](const db::Statement& st) {
             if (st.text_at(1) == name) id = st.int64_at(0).value_or(fallback);
           });
  return id;
}

}  // namespace

bool host_input_from_db(const db::Database& db, HostInput& out, io::Diagnostics& diag,
                        const db::StringIds* loaded) {
  out = HostInput{};
  if (!db.require("PYTORCH_API", {"startNs", "endNs", "globalTid", "connectionId", "name", "type"},
                  diag) ||
      !db.require("TASK", {"startNs", "endNs", "connectionId"}, diag))
    return false;
  db::StringIds own;
  if (!loaded && !own.load(db, diag)) return false;
  const db::StringIds& strings = loaded ? *loaded : own;
  const int64_t op_type = api_type(db, "op", 50001, diag);

  // The lookup tables below live in one arena, freed at once on return (their thousands of
  // nodes are not freed one by one); a pmr container iterates in the same order as std's.
  std::pmr::monotonic_buffer_resource arena;
  std::pmr::unordered_map<int64_t, uint32_t> name_ids(&arena);  // STRING_IDS id -> names index
  std::vector<int64_t> op_connection;  // per op: its CONNECTION_IDS id, or -1
  bool ok = each_row(
      db, "SELECT startNs, endNs, globalTid, connectionId, name, type FROM PYTORCH_API",
      "PYTORCH_API", diag, [&](const db::Statement& st) {
        auto s = st.int64_at(0), e = st.int64_at(1), tid = st.int64_at(2), name = st.int64_at(4);
        if (!s || !e || !tid || !name || *e < *s) return;
        const std::string_view text = strings.get_or_empty(*name);
        if (const Cause c = cause_of_name(text); c != Cause::kCount)
          out.causes.push_back({c, *s, *e});
        if (st.int64_at(5).value_or(-1) != op_type || text.starts_with("ProfilerStep#")) return;
        auto [it, added] = name_ids.try_emplace(*name, static_cast<uint32_t>(out.names.size()));
        if (added) out.names.emplace_back(text);
        out.ops.push_back({it->second, *tid, *s, *e, static_cast<double>(*e - *s) / 1000.0});
        op_connection.push_back(st.int64_at(3).value_or(-1));
      });
  if (!ok) return false;

  // Operator -> connection ids of its device work.
  // CONNECTION_IDS id -> connectionIds
  std::pmr::unordered_map<int64_t, std::pmr::vector<int64_t>> links(&arena);
  if (db.has_table("CONNECTION_IDS"))
    each_row(db, "SELECT id, connectionId FROM CONNECTION_IDS", "CONNECTION_IDS", diag,
             [&](const db::Statement& st) {
               auto id = st.int64_at(0), c = st.int64_at(1);
               if (id && c) links[*id].push_back(*c);
             });
  // Runtime launches by connection id; cause ranges by their names.
  std::pmr::unordered_map<int64_t, int64_t> launch_at(&arena);
  if (db.has_table("CANN_API"))
    each_row(db, "SELECT startNs, endNs, connectionId, name FROM CANN_API", "CANN_API", diag,
             [&](const db::Statement& st) {
               auto s = st.int64_at(0), e = st.int64_at(1), c = st.int64_at(2), n = st.int64_at(3);
               if (!s || !e) return;
               if (c) launch_at.try_emplace(*c, *s);
               if (n)
                 if (const Cause k = cause_of_name(strings.get_or_empty(*n)); k != Cause::kCount)
                   out.causes.push_back({k, *s, *e});
             });
  // Device work by connection id: a collective (COMMUNICATION_OP) or its tasks.
  struct Work {
    int64_t start_ns;
    double us;
  };
  std::pmr::unordered_map<int64_t, std::pmr::vector<Work>> work(&arena);
  std::pmr::unordered_set<int64_t> collective(&arena);
  std::vector<std::pair<int64_t, int64_t>> busy;     // compute tasks and collectives
  std::pmr::unordered_set<int64_t> compute(&arena);  // COMPUTE_TASK_INFO's globalTaskIds
  if (db.has_table("COMPUTE_TASK_INFO"))
    each_row(db, "SELECT globalTaskId FROM COMPUTE_TASK_INFO", "COMPUTE_TASK_INFO", diag,
             [&](const db::Statement& st) {
               if (auto g = st.int64_at(0)) compute.insert(*g);
             });
  if (db.has_table("COMMUNICATION_OP"))
    each_row(db, "SELECT startNs, endNs, connectionId FROM COMMUNICATION_OP", "COMMUNICATION_OP",
             diag, [&](const db::Statement& st) {
               auto s = st.int64_at(0), e = st.int64_at(1), c = st.int64_at(2);
               if (!s || !e || !c) return;
               collective.insert(*c);
               busy.push_back({*s, *e});
               work[*c].push_back({*s, static_cast<double>(*e - *s) / 1000.0});
             });
  const bool task_ids = db.has_column("TASK", "globalTaskId");
  ok = each_row(db,
                task_ids ? "SELECT startNs, endNs, connectionId, globalTaskId FROM TASK"
                         : "SELECT startNs, endNs, connectionId FROM TASK",
                "TASK", diag, [&](const db::Statement& st) {
                  auto s = st.int64_at(0), e = st.int64_at(1), c = st.int64_at(2);
                  if (!s || !e) return;
                  if (task_ids)
                    if (auto g = st.int64_at(3); g && compute.count(*g)) busy.push_back({*s, *e});
                  if (!c || collective.count(*c)) return;
                  work[*c].push_back({*s, static_cast<double>(*e - *s) / 1000.0});
                });
  if (!ok) return false;

  std::pmr::unordered_set<int64_t> owned(&arena);  // connection ids an operator launched
  for (size_t i = 0; i < out.ops.size(); ++i) {
    auto l = links.find(op_connection[i]);
    if (op_connection[i] < 0 || l == links.end()) continue;
    for (int64_t c : l->second) {
      auto w = work.find(c);
      if (w == work.end() || !owned.insert(c).second) continue;
      auto launch = launch_at.find(c);
      for (const Work& k : w->second) {
        DeviceLaunch d;
        d.op = static_cast<int64_t>(i);
        d.tid = out.ops[i].tid;
        d.issue_ns = out.ops[i].start_ns;
        d.launch_ns = launch == launch_at.end() ? d.issue_ns : launch->second;
        d.device_start_ns = k.start_ns;
        d.device_us = k.us;
        out.launches.push_back(d);
      }
    }
  }
  // Tasks no operator claims still tell when the host launched them (dispatch gaps).
  for (const auto& [c, ws] : work) {
    if (owned.count(c)) continue;
    auto launch = launch_at.find(c);
    if (launch == launch_at.end()) continue;
    for (const Work& k : ws) {
      DeviceLaunch d;
      d.tid = INT64_MIN;
      d.issue_ns = d.launch_ns = launch->second;
      d.device_start_ns = k.start_ns;
      d.device_us = k.us;
      out.launches.push_back(d);
    }
  }

  std::vector<db::StepTime> steps;
  if (db::read_step_time(db, steps, diag))
    for (const auto& s : steps) out.steps.push_back({s.id, s.start_ns, s.end_ns});
  if (db.has_table("OVERLAP_ANALYSIS")) {
    out.has_free = true;
    each_row(db, "SELECT startNs, endNs, type FROM OVERLAP_ANALYSIS", "OVERLAP_ANALYSIS", diag,
             [&](const db::Statement& st) {
               auto s = st.int64_at(0), e = st.int64_at(1), t = st.int64_at(2);
               if (s && e && t && *t == 3 && *e >= *s)
                 out.free.push_back({*s, *e, static_cast<double>(*e - *s) / 1000.0});
             });
  } else if (!busy.empty()) {
    // No OVERLAP_ANALYSIS (seen in real DB exports): Free as torch_npu computes it.
    out.has_free = true;
    out.free = free_from_busy(std::move(busy), out.steps);
  }
  return !out.ops.empty();
}

}  // namespace cs::host
