#pragma once
// A plain SQLite statement over one table for the recipes' scans (recipes/*_scan): rows stepped
// in order, values read with their storage class. It never reports: a statement SQLite refuses
// or a failed step only tells the caller to run the recipe's SQL instead, which reports.
// A plain `SELECT a, b FROM t` over a database opened by db::Database is answered from the
// file's pages when SQLite would scan the table for it (db::page_scan): the same rows, in the
// same order, with the same values, without SQLite's virtual machine.

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "db/database.h"
#include "db/query_plan.h"
#include "frame/frame.h"

namespace cs::recipes {

// False when the environment says CS_RECIPE_SCANS=off: the recipes' hand-written scans then
// decline and SQLite answers every query, the same rows (how a scan's benefit is measured,
// docs/db_benchmark.md).
bool scans_enabled();

class TableScan {
 public:
  // Prepares `sql` on `db`: answered from the file's pages when they can (db::Database::
  // page_scan), else by SQLite (which opens the file then); ok() is false when SQLite refuses it.
  // With the scans turned off (scans_enabled()), ok() is false: every scan declines and the
  // recipe's SQL answers.
  TableScan(const db::Database& db, const std::string& sql) {
    if (scans_enabled() && !(pages_ = db.page_scan(sql, true))) prepare(db.handle(), sql);
    init();
  }
  ~TableScan() { sqlite3_finalize(st_); }
  TableScan(const TableScan&) = delete;
  TableScan& operator=(const TableScan&) = delete;

  bool ok() const { return st_ != nullptr || pages_.has_value(); }
  // True when the rows come from the file's pages (db::page_scan), not from SQLite.
  bool paged() const { return pages_.has_value(); }
  // Steps to the next row: 1 a row, 0 done, -1 an error. A row's values and their storage
  // classes are read once here (one sqlite3_column_value per column): the accessors below only
  // look them up, without sqlite3_column_*()'s per-call checks of the statement.
  int next() {
    if (pages_) return next_page_row();
    const int rc = sqlite3_step(st_);
    if (rc != SQLITE_ROW) return rc == SQLITE_DONE ? 0 : -1;
    for (size_t c = 0; c < values_.size(); ++c) {
      values_[c] = sqlite3_column_value(st_, static_cast<int>(c));
      types_[c] = sqlite3_value_type(values_[c]);
    }
    return 1;
  }
  // The storage class of column c (SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, ...).
  int type(int c) const { return types_[static_cast<size_t>(c)]; }
  bool is_int(int c) const { return type(c) == SQLITE_INTEGER; }
  bool is_int_or_null(int c) const { return type(c) == SQLITE_INTEGER || type(c) == SQLITE_NULL; }
  int64_t integer(int c) const { return pages_ ? page_integer(c) : sqlite3_value_int64(value(c)); }
  double real(int c) const { return pages_ ? page_real(c) : sqlite3_value_double(value(c)); }
  // Column c as text (empty for NULL).
  std::string_view text_view(int c) const {
    if (pages_) return page_text(c);
    const auto* t = reinterpret_cast<const char*>(sqlite3_value_text(value(c)));
    return t ? std::string_view(t, static_cast<size_t>(sqlite3_value_bytes(value(c))))
             : std::string_view();
  }
  std::string text(int c) const { return std::string(text_view(c)); }
  // The value as a cell typed as SQLite stored it (pandas.read_sql's view, as RankDb::query).
  frame::Cell cell(int c) const {
    switch (type(c)) {
      case SQLITE_INTEGER:
        return frame::Cell::integer(integer(c));
      case SQLITE_FLOAT:
        return frame::Cell::real(real(c));
      case SQLITE_NULL:
        return frame::Cell::null();
      default:  // interned straight from SQLite's buffer, no std::string in between
        return frame::Cell::text(text_view(c));
    }
  }

 private:
  sqlite3_value* value(int c) const { return values_[static_cast<size_t>(c)]; }
  void prepare(sqlite3* db, const std::string& sql) {
    if (db && sqlite3_prepare_v2(db, sql.c_str(), -1, &st_, nullptr) != SQLITE_OK) {
      sqlite3_finalize(st_);
      st_ = nullptr;
    }
  }
  // The row buffers, for the pages' columns or the statement's.
  void init() {
    if (pages_) {
      const size_t n = pages_->pick.size();
      types_.assign(n, SQLITE_NULL);
      current_.resize(n);
      return;
    }
    const int n = st_ ? sqlite3_column_count(st_) : 0;
    values_.assign(static_cast<size_t>(n), nullptr);
    types_.assign(static_cast<size_t>(n), SQLITE_NULL);
  }
  // The paged rows' counterparts of next(), integer(), real() and text_view(): SQLite's
  // conversions of a value of another storage class (table_scan.cpp).
  int next_page_row();
  int64_t page_integer(int c) const;
  double page_real(int c) const;
  std::string_view page_text(int c) const;

  std::optional<db::PageScan> pages_;
  size_t row_ = 0;
  std::vector<io::sqlite::StoredValue> all_, current_;
  mutable std::vector<std::string> rendered_;  // numbers as text

  sqlite3_stmt* st_ = nullptr;
  std::vector<sqlite3_value*> values_;  // the current row's values (valid until the next step)
  std::vector<int> types_;              // their storage classes, read before any conversion
};

// Runs `sql` (see TableScan) and calls fn(scan) for each row in order; false when the scan
// declines (SQLite refuses the statement, a step fails) or fn returns false.
template <class Fn>
bool scan_rows(const db::Database& db, const std::string& sql, Fn fn) {
  TableScan s(db, sql);
  if (!s.ok()) return false;
  int rc;
  while ((rc = s.next()) == 1)
    if (!fn(s)) return false;
  return rc == 0;
}

// STRING_IDS' values by id, as the scans' joins on its primary key find them.
class StringCells {
 public:
  // Reads STRING_IDS (only the ids in `wanted`, sorted, when given); false when an id is not an
  // integer or the read fails.
  bool load(const db::Database& db, const std::vector<int64_t>* wanted = nullptr);
  // load() of the ids in `ids` only (any order, repeats allowed).
  bool load_ids(const db::Database& db, std::vector<int64_t> ids);
  // The value of `id` as a cell typed as stored; NULL when STRING_IDS has no such id.
  frame::Cell find(int64_t id) const;
  // The value of `id`; nullptr when STRING_IDS has no such id (an inner join drops the row).
  const frame::Cell* lookup(int64_t id) const;

 private:
  std::vector<std::pair<int64_t, frame::Cell>> values_;  // sorted by id
};

// CANN_API's starts by connectionId (its INTEGER PRIMARY KEY), for the scans that keep an op only
// when its CANN launch starts in a range.
class CannStarts {
 public:
  // Reads CANN_API; false when a connectionId is not an integer, a start is neither an integer
  // nor NULL, or the read fails.
  bool load(const db::Database& db);
  // True when `connection` has a launch whose start is in [lo, hi] (a NULL start is in none).
  bool in_range(int64_t connection, int64_t lo, int64_t hi) const;

 private:
  std::vector<std::pair<int64_t, std::optional<int64_t>>> starts_;  // sorted by connectionId
};

// A CONNECTION_IDS row. SQLite's automatic covering index on connectionId holds (connectionId,
// id, rowid), so one connectionId's matches come in (id, rowid) order, NULL ids first: the
// order operator< gives, which the scans reproduce.
struct ConnectionRow {
  int64_t conn = 0;
  bool has_id = false;
  int64_t id = 0;  // 0 when NULL
  int64_t rowid = 0;
  bool operator<(const ConnectionRow& o) const {
    if (conn != o.conn) return conn < o.conn;
    if (has_id != o.has_id) return !has_id;
    if (id != o.id) return id < o.id;
    return rowid < o.rowid;
  }
};

// Reads CONNECTION_IDS: its rows with a connectionId into `out`, sorted, and on_null(row) for
// each row whose connectionId is NULL (when given). False when a rowid is not an integer, an id
// or a connectionId is neither an integer nor NULL, or the read fails.
bool load_connections(const db::Database& db, std::vector<ConnectionRow>& out,
                      const std::function<void(const ConnectionRow&)>& on_null = {});
// The rows of `rows` (sorted) whose connectionId is `conn`, in order.
std::span<const ConnectionRow> connection_matches(const std::vector<ConnectionRow>& rows,
                                                  int64_t conn);

// The scans' keyed lookups: pairs (key, value) sorted by key (stably: equal keys keep their
// order), and the value of a key's first pair (nullptr when there is none).
template <class V>
void sort_by_key(std::vector<std::pair<int64_t, V>>& v) {
  std::stable_sort(v.begin(), v.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
}
template <class V>
const V* find_key(const std::vector<std::pair<int64_t, V>>& v, int64_t key) {
  auto it = std::lower_bound(v.begin(), v.end(), key,
                             [](const auto& p, int64_t k) { return p.first < k; });
  return it != v.end() && it->first == key ? &it->second : nullptr;
}

}  // namespace cs::recipes
