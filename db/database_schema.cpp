// Database's schema checks: which tables and columns the file has, and the one message for a
// table or column it lacks.
#include <sqlite3.h>

#include <algorithm>
#include <mutex>

#include "db/database.h"
#include "db/database_pages.h"

namespace cs::db {

namespace {

// Identifiers from our own code are plain names, but quote them anyway for PRAGMA arguments.
std::string quoted(std::string_view name) {
  std::string q = "\"";
  for (char c : name) {
    if (c == '"') q += '"';
    q += c;
  }
  q += '"';
  return q;
}

}  // namespace

bool Database::has_table(std::string_view table) const {
  return std::binary_search(tables_.begin(), tables_.end(), table);
}

std::vector<std::string> Database::tables() const {
  return tables_;
}

std::vector<std::string> Database::columns(std::string_view table) const {
  std::vector<std::string> out;
  if (!has_table(table)) return out;
  if (paged_) {  // a table the page reader reads: its columns as PRAGMA table_info names them
    std::lock_guard lock(paged_->mutex);
    if (const auto& pages = paged_->pages())
      if (const io::sqlite::PagedTable* t = pages->table(table); t && t->readable)
        return t->columns;
  }
  std::string sql = "PRAGMA table_info(" + quoted(table) + ")";
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(handle(), sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return out;
  }
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    const unsigned char* name = sqlite3_column_text(stmt, 1);
    if (name) out.emplace_back(reinterpret_cast<const char*>(name));
  }
  sqlite3_finalize(stmt);
  return out;
}

bool Database::has_column(std::string_view table, std::string_view column) const {
  auto cols = columns(table);
  return std::find(cols.begin(), cols.end(), column) != cols.end();
}

bool Database::require(std::string_view table, const std::vector<std::string>& columns,
                       io::Diagnostics& diag) const {
  if (!has_table(table)) {
    diag.error(path_, 0, "table " + std::string(table) + " is missing",
               "the profiler did not export it or the file is incomplete; re-export the rank's "
               "profile data with export type db");
    return false;
  }
  auto have = this->columns(table);
  std::string missing;
  for (const auto& c : columns) {
    if (std::find(have.begin(), have.end(), c) == have.end()) {
      if (!missing.empty()) missing += ", ";
      missing += c;
    }
  }
  if (missing.empty()) return true;
  diag.error(path_, 0, table_where(table) + "missing column(s) " + missing,
             "the file comes from a profiler version clusterscope does not know; re-export it "
             "with a current torch_npu/CANN or report the version");
  return false;
}

}  // namespace cs::db
