#include "db/query_plan.h"

#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string_view>
#include <utility>

#include "db/database.h"

namespace cs::db {

namespace {

// Runs `sql` through SQLite, calling row(statement) for each row; false when SQLite refuses it
// or a step fails, or row() returns false.
template <typename Row>
bool each_row(sqlite3* db, const std::string& sql, Row&& row) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    sqlite3_finalize(st);
    return false;
  }
  int rc;
  bool ok = true;
  while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) ok = row(st);
  sqlite3_finalize(st);
  return ok && rc == SQLITE_DONE;
}

std::string_view text_of(sqlite3_stmt* st, int c) {
  const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
  return t ? std::string_view(t, static_cast<size_t>(sqlite3_column_bytes(st, c)))
           : std::string_view();
}

// The schema as text (every sqlite_master row); empty when it cannot be read or when SQLite
// would also plan from statistics (sqlite_stat1 / sqlite_stat4), so the answer is not kept.
// Read from the file's pages when it can be (no SQLite at all), else through SQLite.
std::string schema_key(const Database& db) {
  const std::string sql = "SELECT type, name, tbl_name, sql FROM sqlite_master";
  std::string key;
  auto add = [&](auto&& column) {
    if (std::string_view(column(1)).starts_with("sqlite_stat")) return false;
    for (int c = 0; c < 4; ++c) {
      key += column(c);
      key += '\x1f';
    }
    key += '\x1e';
    return true;
  };
  if (auto pages = db.page_scan(sql)) {
    std::vector<io::sqlite::StoredValue> all;
    for (size_t r = 0; r < pages->rows.size(); ++r) {
      pages->rows.decode(r, all, pages->decode);
      std::string texts[4];
      for (int c = 0; c < 4; ++c) texts[c] = sqlite_text_of(all[pages->pick[c]]);
      if (!add([&](int c) { return texts[c]; })) return {};
    }
    return key;
  }
  sqlite3* handle = db.handle();
  if (!handle) return {};
  bool stats = false;
  const bool ok = each_row(handle, sql, [&](sqlite3_stmt* st) {
    if (!add([&](int c) { return std::string(text_of(st, c)); })) stats = true;
    return !stats;
  });
  return ok && !stats ? key : std::string();
}

bool plan_matches(sqlite3* db, const std::string& sql, const std::vector<std::string>& expected) {
  size_t n = 0;
  const bool ok = each_row(db, "EXPLAIN QUERY PLAN " + sql, [&](sqlite3_stmt* st) {
    return n < expected.size() && text_of(st, 3) == expected[n++];
  });
  return ok && n == expected.size();
}

}  // namespace

bool query_plan_is(const Database& db, const std::string& sql,
                   const std::vector<std::string>& expected, bool (*also)(sqlite3*)) {
  static std::mutex mu;
  // (schema, sql and `also`) -> answer
  static std::map<std::pair<std::string, std::string>, bool> known;
  auto answer = [&] {
    sqlite3* handle = db.handle();
    return handle && plan_matches(handle, sql, expected) && (!also || also(handle));
  };
  std::string schema = schema_key(db);
  if (schema.empty()) return answer();
  std::string what = sql;
  if (also) what += '\x1f' + std::to_string(reinterpret_cast<uintptr_t>(also));
  auto key = std::make_pair(std::move(schema), std::move(what));
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = known.find(key); it != known.end()) return it->second;
  }
  const bool ok = answer();
  std::lock_guard<std::mutex> lock(mu);
  known.emplace(std::move(key), ok);
  return ok;
}

bool task_index_is_start_then_task_id(sqlite3* db) {
  static const char* const kKeys[] = {"startNs", "globalTaskId"};
  size_t keys = 0;
  const bool ok = each_row(db, "PRAGMA index_xinfo('TaskIndex')", [&](sqlite3_stmt* st) {
    if (sqlite3_column_type(st, 5) != SQLITE_INTEGER || sqlite3_column_int64(st, 5) == 0)
      return true;  // the rowid after the keys
    if (keys >= 2 || text_of(st, 2) != kKeys[keys] ||
        sqlite3_column_type(st, 3) != SQLITE_INTEGER || sqlite3_column_int64(st, 3) != 0 ||
        text_of(st, 4) != "BINARY")
      return false;
    ++keys;
    return true;
  });
  return ok && keys == 2;
}

}  // namespace cs::db
