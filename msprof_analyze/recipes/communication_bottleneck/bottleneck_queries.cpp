#include "msprof_analyze/recipes/communication_bottleneck/bottleneck_queries.h"

#include <sqlite3.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <functional>

namespace cs::recipes::communication_bottleneck {

namespace {

constexpr const char* kCommunicationOps = R"(
SELECT COMMUNICATION_OP.startNs AS "start_ns", COMMUNICATION_OP.endNs AS "end_ns",
       COMMUNICATION_OP.endNs - COMMUNICATION_OP.startNs AS "duration",
       STRING_IDS.value AS "comm_name"
FROM COMMUNICATION_OP JOIN STRING_IDS ON STRING_IDS.id = COMMUNICATION_OP.opName
WHERE COMMUNICATION_OP.startNs >= ? AND COMMUNICATION_OP.endNs <= ?
ORDER BY "duration" DESC)";

constexpr const char* kOpNamed = R"(
SELECT COMMUNICATION_OP.startNs AS "start_ns", COMMUNICATION_OP.endNs AS "end_ns",
       COMMUNICATION_OP.endNs - COMMUNICATION_OP.startNs AS "duration",
       STRING_IDS.value AS "comm_name"
FROM COMMUNICATION_OP JOIN STRING_IDS ON COMMUNICATION_OP.opName = STRING_IDS.id
WHERE STRING_IDS.value = ?
GROUP BY STRING_IDS.value)";

constexpr const char* kLaunches = R"(
SELECT TASK.connectionId, TASK.startNs, TASK.endNs, CANN_API.startNs, CANN_API.endNs,
       PYTORCH_API.startNs, PYTORCH_API.endNs
FROM TASK
JOIN CANN_API ON TASK.connectionId = CANN_API.connectionId
JOIN CONNECTION_IDS ON CONNECTION_IDS.connectionId = TASK.connectionId
JOIN PYTORCH_API ON CONNECTION_IDS.id = PYTORCH_API.connectionId
JOIN ENUM_API_TYPE ON CANN_API.type = ENUM_API_TYPE.id
JOIN STRING_IDS ON STRING_IDS.id = CANN_API.name
WHERE TASK.startNs > ? AND TASK.endNs < ? AND ENUM_API_TYPE.name = 'node'
  AND STRING_IDS.value = 'launch'
ORDER BY TASK.startNs DESC)";

constexpr const char* kComputeTasks = R"(
SELECT TASK.startNs AS "start_ns", TASK.endNs AS "end_ns",
       (TASK.endNs - TASK.startNs) AS "duration", STRING_IDS.value AS "task_name"
FROM TASK
JOIN COMPUTE_TASK_INFO ON TASK.globalTaskId = COMPUTE_TASK_INFO.globalTaskId
JOIN STRING_IDS ON COMPUTE_TASK_INFO.name = STRING_IDS.id
WHERE TASK.startNs >= ? AND TASK.endNs <= ?
ORDER BY "start_ns" DESC)";

constexpr const char* kCommunicationTasks = R"(
SELECT MIN(TASK.startNs) AS "start_ns", MAX(TASK.endNs) AS "end_ns",
       MAX(TASK.endNs) - MIN(TASK.startNs) AS "duration", STRING_IDS.value AS "task_name"
FROM TASK
JOIN COMMUNICATION_TASK_INFO ON TASK.globalTaskId = COMMUNICATION_TASK_INFO.globalTaskId
JOIN STRING_IDS ON COMMUNICATION_TASK_INFO.name = STRING_IDS.id
WHERE TASK.startNs >= ? AND TASK.endNs <= ?
GROUP BY STRING_IDS.value
ORDER BY "start_ns" DESC)";

constexpr const char* kMemcpyTasks = R"(
SELECT TASK.startNs AS "start_ns", TASK.endNs AS "end_ns",
       (TASK.endNs - TASK.startNs) AS "duration", STRING_IDS.value AS "task_name"
FROM TASK JOIN STRING_IDS ON TASK.taskType = STRING_IDS.id
WHERE TASK.startNs >= ? AND TASK.endNs <= ? AND LOWER(STRING_IDS.value) LIKE LOWER('%memcpy%')
ORDER BY TASK.startNs DESC)";

constexpr const char* kPytorchTasks = R"(
SELECT PYTORCH_API.startNs AS "start_ns", PYTORCH_API.endNs AS "end_ns",
       PYTORCH_API.endNs - PYTORCH_API.startNs AS "duration", STRING_IDS.value AS "task_name"
FROM PYTORCH_API JOIN STRING_IDS ON STRING_IDS.id = PYTORCH_API.name
WHERE PYTORCH_API.startNs >= ? AND PYTORCH_API.endNs <= ? AND STRING_IDS.value LIKE '%::%'
ORDER BY PYTORCH_API.startNs DESC)";

constexpr const char* kCannTasks = R"(
SELECT CANN_API.startNs AS "start_ns", CANN_API.endNs AS "end_ns",
       CANN_API.endNs - CANN_API.startNs AS "duration",
       ENUM_API_TYPE.name || '@' || STRING_IDS.value AS "task_name"
FROM CANN_API
JOIN STRING_IDS ON STRING_IDS.id = CANN_API.name
JOIN ENUM_API_TYPE ON ENUM_API_TYPE.id = CANN_API.type
WHERE CANN_API.startNs >= ? AND CANN_API.endNs <= ?
ORDER BY CANN_API.startNs DESC)";

// Runs `sql` on `path` (read-only) with `params`, calling `row` per result row. False with a
// message in `error` when the file cannot be opened or the query fails.
bool run(const std::string& path, const char* sql, const std::vector<SqlParam>& params,
         const std::vector<std::string>& text_params, const std::function<bool(sqlite3_stmt*)>& row,
         std::string& error) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    error = path + ": no such database";
    return false;
  }
  sqlite3* db = nullptr;
  const std::string uri = "file:" + path + "?mode=ro&immutable=1";
  bool ok = sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) ==
            SQLITE_OK;
  sqlite3_stmt* st = nullptr;
  ok = ok && sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK;
  std::vector<std::string> texts = text_params;
  for (size_t i = 0; ok && i < params.size(); ++i) {
    const int at = static_cast<int>(i + 1 + text_params.size());
    const SqlParam& p = params[i];
    if (p.kind == SqlParam::Kind::kInt) {
      sqlite3_bind_int64(st, at, p.value);
    } else if (p.kind == SqlParam::Kind::kText) {
      texts.push_back(std::to_string(p.value));
      sqlite3_bind_text(st, at, texts.back().c_str(), -1, SQLITE_TRANSIENT);
    } else {  // numpy.int64 through the buffer protocol: its 8 bytes, little-endian
      std::array<unsigned char, 8> b{};
      for (size_t k = 0; k < 8; ++k)
        b[k] = static_cast<unsigned char>(static_cast<uint64_t>(p.value) >> (8 * k));
      sqlite3_bind_blob(st, at, b.data(), 8, SQLITE_TRANSIENT);
    }
  }
  for (size_t i = 0; ok && i < text_params.size(); ++i)
    sqlite3_bind_text(st, static_cast<int>(i + 1), texts[i].c_str(), -1, SQLITE_TRANSIENT);
  int rc = SQLITE_ROW;
  while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) ok = row(st);
  ok = ok && rc == SQLITE_DONE;
  if (!ok) error = path + ": " + (db ? sqlite3_errmsg(db) : "cannot open");
  sqlite3_finalize(st);
  sqlite3_close(db);
  return ok;
}

}  // namespace

std::optional<std::vector<Span>> BottleneckDb::spans(const char* sql,
                                                     const std::vector<SqlParam>& params) {
  std::vector<Span> out;
  const bool ok = run(
      path_, sql, params, {},
      [&](sqlite3_stmt* st) {
        Span s;
        s.start_ns = sqlite3_column_int64(st, 0);
        s.end_ns = sqlite3_column_int64(st, 1);
        s.duration = sqlite3_column_int64(st, 2);
        const unsigned char* t = sqlite3_column_text(st, 3);
        s.name = t ? reinterpret_cast<const char*>(t) : "";
        out.push_back(std::move(s));
        return true;
      },
      error);
  if (!ok) return std::nullopt;
  return out;
}

std::optional<std::vector<Span>> BottleneckDb::communication_ops(int64_t start, int64_t end) {
  return spans(kCommunicationOps, {SqlParam::integer(start), SqlParam::integer(end)});
}

std::vector<std::optional<std::vector<Span>>> BottleneckDb::ops_named(
    const std::vector<std::string>& names) {
  std::vector<std::optional<std::vector<Span>>> out(names.size());
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path_, ec)) {
    error = path_ + ": no such database";
    return out;
  }
  sqlite3* db = nullptr;
  const std::string uri = "file:" + path_ + "?mode=ro&immutable=1";
  sqlite3_stmt* st = nullptr;
  const bool open = sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
                                    nullptr) == SQLITE_OK &&
                    sqlite3_prepare_v2(db, kOpNamed, -1, &st, nullptr) == SQLITE_OK;
  for (size_t i = 0; open && i < names.size(); ++i) {
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, names[i].c_str(), -1, SQLITE_TRANSIENT);
    std::vector<Span> rows;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
      rows.push_back({sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                      sqlite3_column_int64(st, 2), names[i]});
    if (rc == SQLITE_DONE)
      out[i] = std::move(rows);
    else
      error = path_ + ": " + sqlite3_errmsg(db);
  }
  if (!open) error = path_ + ": " + (db ? sqlite3_errmsg(db) : "cannot open");
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

std::optional<std::vector<Launch>> BottleneckDb::launches(SqlParam start, SqlParam end) {
  std::vector<Launch> out;
  const bool ok = run(
      path_, kLaunches, {start, end}, {},
      [&](sqlite3_stmt* st) {
        out.push_back({sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
                       sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4),
                       sqlite3_column_int64(st, 5), sqlite3_column_int64(st, 6)});
        return true;
      },
      error);
  if (!ok) return std::nullopt;
  return out;
}

std::optional<std::vector<Span>> BottleneckDb::compute_tasks(SqlParam start, SqlParam end) {
  return spans(kComputeTasks, {start, end});
}
std::optional<std::vector<Span>> BottleneckDb::communication_tasks(SqlParam start, SqlParam end) {
  return spans(kCommunicationTasks, {start, end});
}
std::optional<std::vector<Span>> BottleneckDb::memcpy_tasks(SqlParam start, SqlParam end) {
  return spans(kMemcpyTasks, {start, end});
}
std::optional<std::vector<Span>> BottleneckDb::pytorch_tasks(SqlParam start, SqlParam end) {
  return spans(kPytorchTasks, {start, end});
}
std::optional<std::vector<Span>> BottleneckDb::cann_tasks(SqlParam start, SqlParam end) {
  return spans(kCannTasks, {start, end});
}

}  // namespace cs::recipes::communication_bottleneck
