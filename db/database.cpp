#include "db/database.h"

#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include "db/database_pages.h"
#include "db/file_uri.h"
#include "db/private_copy.h"
#include "db/sqlite_vfs.h"
#include "io/sqlite/pending_sidecar.h"

namespace cs::db {

Database::Database(Database&& o) noexcept
    : db_(std::exchange(o.db_, nullptr)),
      open_error_(std::move(o.open_error_)),
      path_(std::move(o.path_)),
      sqlite_path_(std::move(o.sqlite_path_)),
      tables_(std::move(o.tables_)),
      copy_(std::move(o.copy_)),
      paged_(std::move(o.paged_)) {}

Database& Database::operator=(Database&& o) noexcept {
  if (this != &o) {
    close();
    db_ = std::exchange(o.db_, nullptr);
    open_error_ = std::move(o.open_error_);
    path_ = std::move(o.path_);
    sqlite_path_ = std::move(o.sqlite_path_);
    tables_ = std::move(o.tables_);
    copy_ = std::move(o.copy_);
    paged_ = std::move(o.paged_);
  }
  return *this;
}

Database::~Database() {
  close();
}

void Database::close() {
  if (!db_) return;
  sqlite3_close_v2(db_);
  db_ = nullptr;
}

int Database::open_sqlite() const {
  int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX;
  sqlite3_vfs* vfs = direct_path_vfs();
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(immutable_file_uri(sqlite_path_).c_str(), &db, flags,
                                 vfs ? vfs->zName : nullptr);
  if (rc != SQLITE_OK) {
    open_error_ = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return rc;
  }
  sqlite3_extended_result_codes(db, 1);
  db_ = db;
  return SQLITE_OK;
}

sqlite3* Database::handle() const {
  if (!db_ && open_error_.empty()) open_sqlite();
  return db_;
}

std::optional<Database> Database::open(const std::string& path, io::Diagnostics& diag) {
  direct_path_vfs();  // SQLite configured before anything starts it (see there)
  Database d;
  d.path_ = path;
  // SQLite may open the file later: a relative path is taken against today's working directory
  // (as SQLite itself would take it now).
  d.sqlite_path_ = path;
  if (!path.empty() && path.front() != '/') {
    std::error_code ec;
    const auto cwd = std::filesystem::current_path(ec);
    if (!ec) d.sqlite_path_ = (cwd / path).string();
  }
  // Committed changes still in a -wal or hot -journal beside the file: read from a private copy
  // with them applied (db/private_copy), or not at all.
  std::string read_path = path;
  if (const std::string sidecar = io::sqlite::pending_sidecar(path); !sidecar.empty()) {
    d.copy_ = PrivateCopy::make(path, sidecar, diag);
    if (!d.copy_) return std::nullopt;
    read_path = d.sqlite_path_ = d.copy_->path();
  }
  d.paged_ = std::make_unique<Paged>(read_path);
  // The tables' names from the file's pages when the page reader reads it: SQLite then opens
  // the file, and parses the schema's CREATE statements, only if a query needs SQLite.
  {
    std::lock_guard lock(d.paged_->mutex);
    if (const auto& pages = d.paged_->pages()) {
      d.tables_ = pages->table_names();
      std::sort(d.tables_.begin(), d.tables_.end());
      return d;
    }
  }
  // Otherwise SQLite reads it now: a missing file, a non-database or a truncated header fails
  // here, in SQLite's words.
  if (const int rc = d.open_sqlite(); rc != SQLITE_OK) {
    diag.error(path, 0, "cannot open database: " + d.open_error_, sqlite_hint(rc));
    return std::nullopt;
  }
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(
      d.db_, "SELECT name FROM sqlite_master WHERE type IN ('table','view')", -1, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    diag.error(path, 0, std::string("cannot read database schema: ") + sqlite3_errmsg(d.db_),
               sqlite_hint(rc));
    sqlite3_finalize(stmt);
    return std::nullopt;
  }
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    const unsigned char* t = sqlite3_column_text(stmt, 0);
    if (t) d.tables_.emplace_back(reinterpret_cast<const char*>(t));
  }
  if (rc != SQLITE_DONE) {
    diag.error(path, 0, std::string("cannot read database schema: ") + sqlite3_errmsg(d.db_),
               sqlite_hint(rc));
    sqlite3_finalize(stmt);
    return std::nullopt;
  }
  sqlite3_finalize(stmt);
  std::sort(d.tables_.begin(), d.tables_.end());
  return d;
}

std::optional<Statement> Database::prepare(std::string_view sql, std::string_view table,
                                           io::Diagnostics& diag) const {
  if (auto rows = page_scan(sql)) return Statement(std::move(*rows), path_, std::string(table));
  sqlite3* db = handle();
  if (!db) {
    diag.error(path_, 0, table_where(table) + "cannot open database: " + open_error_,
               "check the file exists and is readable");
    return std::nullopt;
  }
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK || stmt == nullptr) {
    diag.error(path_, 0, table_where(table) + "cannot query: " + sqlite3_errmsg(db),
               sqlite_hint(rc));
    sqlite3_finalize(stmt);
    return std::nullopt;
  }
  return Statement(stmt, path_, std::string(table));
}

}  // namespace cs::db
