#pragma once
// A plain SQLite statement over one table for the recipes' scans (recipes/*_scan): rows stepped
// in order, values read with their storage class. It never reports: a statement SQLite refuses
// or a failed step only tells the caller to run the recipe's SQL instead, which reports.

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <vector>

#include "recipes/frame/frame.h"

namespace cs::recipes {

class TableScan {
 public:
  // Prepares `sql` on `db`; ok() is false when SQLite refuses it (or `db` is null).
  TableScan(sqlite3* db, const std::string& sql) {
    if (db && sqlite3_prepare_v2(db, sql.c_str(), -1, &st_, nullptr) != SQLITE_OK) {
      sqlite3_finalize(st_);
      st_ = nullptr;
    }
  }
  ~TableScan() { sqlite3_finalize(st_); }
  TableScan(const TableScan&) = delete;
  TableScan& operator=(const TableScan&) = delete;

  bool ok() const { return st_ != nullptr; }
  // Steps to the next row: 1 a row, 0 done, -1 an error.
  int next() {
    const int rc = sqlite3_step(st_);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
  }
  // The storage class of column c (SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, ...).
  int type(int c) const { return sqlite3_column_type(st_, c); }
  bool is_int(int c) const { return type(c) == SQLITE_INTEGER; }
  bool is_int_or_null(int c) const { return type(c) == SQLITE_INTEGER || type(c) == SQLITE_NULL; }
  int64_t integer(int c) const { return sqlite3_column_int64(st_, c); }
  // Column c as text (empty for NULL).
  std::string text(int c) const {
    const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st_, c));
    return t ? std::string(t, static_cast<size_t>(sqlite3_column_bytes(st_, c))) : std::string();
  }
  // The value as a cell typed as SQLite stored it (pandas.read_sql's view, as RankDb::query).
  Cell cell(int c) const {
    switch (type(c)) {
      case SQLITE_INTEGER:
        return Cell::integer(integer(c));
      case SQLITE_FLOAT:
        return Cell::real(sqlite3_column_double(st_, c));
      case SQLITE_NULL:
        return Cell::null();
      default: {  // interned straight from SQLite's buffer, no std::string in between
        const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st_, c));
        return Cell::text(t ? std::string_view(t, static_cast<size_t>(sqlite3_column_bytes(st_, c)))
                            : std::string_view());
      }
    }
  }

 private:
  sqlite3_stmt* st_ = nullptr;
};

// True when SQLite's plan for `sql` (EXPLAIN QUERY PLAN's detail lines, in order) is `expected`:
// a scan that reproduces a query's row order does so only for the plan it was written from. The
// answer is kept per database schema (every CREATE statement): without sqlite_stat tables SQLite
// plans from the schema alone, so ranks written by one profiler version plan the query once.
bool query_plan_is(sqlite3* db, const std::string& sql, const std::vector<std::string>& expected);

}  // namespace cs::recipes
