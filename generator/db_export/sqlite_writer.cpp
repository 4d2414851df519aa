#include "generator/db_export/sqlite_writer.h"

#include <cstdio>
#include <filesystem>
#include <system_error>

namespace cs::generator {

Insert::~Insert() {
  if (st_) sqlite3_finalize(st_);
}

void Insert::row(std::initializer_list<SqlValue> values) {
  if (!st_) return;
  int i = 1;
  for (const SqlValue& v : values) {
    switch (v.kind) {
      case SqlValue::kNull:
        sqlite3_bind_null(st_, i);
        break;
      case SqlValue::kInt:
        sqlite3_bind_int64(st_, i, v.i);
        break;
      case SqlValue::kReal:
        sqlite3_bind_double(st_, i, v.d);
        break;
      case SqlValue::kText:
        sqlite3_bind_text(st_, i, v.s.data(), static_cast<int>(v.s.size()), SQLITE_TRANSIENT);
        break;
    }
    ++i;
  }
  if (sqlite3_step(st_) != SQLITE_DONE && error_->empty())
    *error_ = sqlite3_errmsg(sqlite3_db_handle(st_));
  sqlite3_reset(st_);
}

SqliteFile::~SqliteFile() {
  if (db_) sqlite3_close(db_);
}

bool SqliteFile::create(const std::string& path, io::Diagnostics& diag) {
  path_ = path;
  std::error_code ec;
  std::filesystem::remove(path, ec);
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    diag.error(path, 0,
               std::string("cannot create database: ") + (db_ ? sqlite3_errmsg(db_) : "no memory"),
               "check that the output directory is writable and the disk is not full");
    return false;
  }
  exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN");
  if (error_.empty()) return true;
  finish(diag);
  return false;
}

void SqliteFile::exec(const std::string& sql) {
  if (!db_) return;
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK && error_.empty())
    error_ = err ? err : "unknown SQLite error";
  sqlite3_free(err);
}

Insert SqliteFile::insert(const std::string& table, int columns) {
  std::string sql = "INSERT INTO " + table + " VALUES (";
  for (int i = 0; i < columns; ++i) sql += i ? ",?" : "?";
  sql += ')';
  sqlite3_stmt* st = nullptr;
  if (db_ && sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    if (error_.empty()) error_ = sqlite3_errmsg(db_);
    st = nullptr;
  }
  return Insert(st, &error_);
}

bool SqliteFile::finish(io::Diagnostics& diag) {
  if (!db_) return false;
  if (error_.empty()) exec("COMMIT");
  if (sqlite3_close(db_) != SQLITE_OK && error_.empty()) error_ = "cannot close the database";
  db_ = nullptr;
  if (error_.empty()) return true;
  diag.error(path_, 0, "cannot write database: " + error_,
             "check free disk space and that the output directory is writable, then retry");
  return false;
}

int64_t StringIdTable::id(std::string_view s) {
  auto [it, added] = ids_.try_emplace(std::string(s), static_cast<int64_t>(order_.size()));
  if (added) order_.push_back(&it->first);
  return it->second;
}

void StringIdTable::write(SqliteFile& db) const {
  Insert ins = db.insert("STRING_IDS", 2);
  for (size_t i = 0; i < order_.size(); ++i)
    ins.row({static_cast<int64_t>(i), std::string_view(*order_[i])});
}

}  // namespace cs::generator
