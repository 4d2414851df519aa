#include "recipes/table_scan.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

namespace cs::recipes {

namespace {

// The schema as text (every sqlite_master row); empty when it cannot be read or when SQLite
// would also plan from statistics (sqlite_stat1 / sqlite_stat4), so the answer is not kept.
std::string schema_key(sqlite3* db) {
  TableScan s(db, "SELECT type, name, tbl_name, sql FROM sqlite_master");
  if (!s.ok()) return {};
  std::string key;
  int rc;
  while ((rc = s.next()) == 1) {
    const std::string name = s.text(1);
    if (name.starts_with("sqlite_stat")) return {};
    for (int c = 0; c < 4; ++c) {
      key += s.text(c);
      key += '\x1f';
    }
    key += '\x1e';
  }
  return rc == 0 ? key : std::string();
}

bool plan_matches(sqlite3* db, const std::string& sql, const std::vector<std::string>& expected) {
  TableScan plan(db, "EXPLAIN QUERY PLAN " + sql);
  if (!plan.ok()) return false;
  size_t n = 0;
  int rc;
  while ((rc = plan.next()) == 1) {
    if (n >= expected.size() || plan.text(3) != expected[n]) return false;
    ++n;
  }
  return rc == 0 && n == expected.size();
}

}  // namespace

int TableScan::next_page_row() {
  if (row_ == pages_->rows.size()) return 0;
  const size_t r = row_++;
  pages_->rows.decode(r, all_, pages_->decode);
  for (size_t c = 0; c < current_.size(); ++c) {
    const int from = pages_->pick[c];
    io::sqlite::StoredValue& v = current_[c];
    if (from >= 0) {
      v = all_[static_cast<size_t>(from)];
    } else {
      v = io::sqlite::StoredValue{};
      v.kind = io::sqlite::StoredValue::Kind::kInt;
      v.i = pages_->rows.rowid(r);
    }
    using K = io::sqlite::StoredValue::Kind;
    types_[c] = v.kind == K::kInt    ? SQLITE_INTEGER
                : v.kind == K::kReal ? SQLITE_FLOAT
                : v.kind == K::kText ? SQLITE_TEXT
                : v.kind == K::kBlob ? SQLITE_BLOB
                                     : SQLITE_NULL;
  }
  return 1;
}

int64_t TableScan::page_integer(int c) const {
  const io::sqlite::StoredValue& v = current_[static_cast<size_t>(c)];
  return v.kind == io::sqlite::StoredValue::Kind::kInt ? v.i : db::sqlite_int64_of(v);
}

double TableScan::page_real(int c) const {
  const io::sqlite::StoredValue& v = current_[static_cast<size_t>(c)];
  return v.kind == io::sqlite::StoredValue::Kind::kReal ? v.r : db::sqlite_double_of(v);
}

std::string_view TableScan::page_text(int c) const {
  const io::sqlite::StoredValue& v = current_[static_cast<size_t>(c)];
  using K = io::sqlite::StoredValue::Kind;
  if (v.kind == K::kText || v.kind == K::kBlob) return v.bytes;
  if (v.kind == K::kNull) return {};
  rendered_.resize(current_.size());
  return rendered_[static_cast<size_t>(c)] = db::sqlite_text_of(v);
}

bool query_plan_is(sqlite3* db, const std::string& sql, const std::vector<std::string>& expected,
                   bool (*also)(sqlite3*)) {
  static std::mutex mu;
  // (schema, sql and `also`) -> answer
  static std::map<std::pair<std::string, std::string>, bool> known;
  auto answer = [&] { return plan_matches(db, sql, expected) && (!also || also(db)); };
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
  TableScan s(db, "PRAGMA index_xinfo('TaskIndex')");
  if (!s.ok()) return false;
  static const char* const kKeys[] = {"startNs", "globalTaskId"};
  size_t keys = 0;
  int rc;
  while ((rc = s.next()) == 1) {
    if (!s.is_int(5) || s.integer(5) == 0) continue;  // the rowid after the keys
    if (keys >= 2 || s.text_view(2) != kKeys[keys] || !s.is_int(3) || s.integer(3) != 0 ||
        s.text_view(4) != "BINARY")
      return false;
    ++keys;
  }
  return rc == 0 && keys == 2;
}

}  // namespace cs::recipes
