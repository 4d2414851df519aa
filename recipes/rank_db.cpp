#include "recipes/rank_db.h"

#include <sqlite3.h>

#include <cstdio>

namespace cs::recipes {

namespace {

// A file: URI for `path` with the characters URIs reserve percent-encoded.
std::string file_uri(const std::string& path) {
  std::string out = "file:";
  for (unsigned char c : path) {
    if (c == '%' || c == '?' || c == '#' || c < 0x20) {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "?immutable=1";
}

}  // namespace

RankDb::RankDb(const std::string& path, io::Diagnostics& diag) : path_(path) {
  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(file_uri(path).c_str(), &db,
                      SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    diag.error(path, 0, std::string("cannot open the database: ") + sqlite3_errstr(rc),
               "check that the file exists and is readable");
    if (db) sqlite3_close(db);
    return;
  }
  // A file that is not a database fails only at the first read: check now.
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &st, nullptr) != SQLITE_OK ||
      sqlite3_step(st) != SQLITE_ROW) {
    diag.error(path, 0, std::string("not a readable SQLite database: ") + sqlite3_errmsg(db),
               "re-export this rank's profiling data (the file is damaged or not a database)");
    sqlite3_finalize(st);
    sqlite3_close(db);
    return;
  }
  sqlite3_finalize(st);
  db_ = db;
}

RankDb::~RankDb() {
  if (db_) sqlite3_close(db_);
}

bool RankDb::has_table(const std::string& table) {
  if (!db_) return false;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", -1, &st,
                         nullptr) != SQLITE_OK)
    return false;
  sqlite3_bind_text(st, 1, table.c_str(), -1, SQLITE_TRANSIENT);
  const bool found = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  return found;
}

std::vector<std::string> RankDb::columns(const std::string& table) {
  std::vector<std::string> out;
  if (!db_) return out;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT name FROM pragma_table_info(?)", -1, &st, nullptr) !=
      SQLITE_OK)
    return out;
  sqlite3_bind_text(st, 1, table.c_str(), -1, SQLITE_TRANSIENT);
  while (sqlite3_step(st) == SQLITE_ROW)
    out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
  sqlite3_finalize(st);
  return out;
}

bool RankDb::query(const std::string& sql, const std::vector<int64_t>& params, Frame& out,
                   const std::string& table, io::Diagnostics& diag) {
  if (!db_) return false;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    diag.error(path_, 0, "table " + table + ": " + sqlite3_errmsg(db_),
               "re-export this rank's profiling data (a table or column msprof-analyze reads is "
               "missing)");
    return false;
  }
  for (size_t i = 0; i < params.size(); ++i)
    sqlite3_bind_int64(st, static_cast<int>(i) + 1, params[i]);
  const int ncols = sqlite3_column_count(st);
  out = Frame{};
  for (int c = 0; c < ncols; ++c) out.add(sqlite3_column_name(st, c));
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    for (int c = 0; c < ncols; ++c) {
      auto& cells = out.columns[static_cast<size_t>(c)].cells;
      switch (sqlite3_column_type(st, c)) {
        case SQLITE_INTEGER:
          cells.push_back(Cell::integer(sqlite3_column_int64(st, c)));
          break;
        case SQLITE_FLOAT:
          cells.push_back(Cell::real(sqlite3_column_double(st, c)));
          break;
        case SQLITE_NULL:
          cells.push_back(Cell::null());
          break;
        default: {
          const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
          cells.push_back(Cell::text(std::string(p ? p : "", sqlite3_column_bytes(st, c))));
        }
      }
    }
  }
  if (rc != SQLITE_DONE) {
    diag.error(path_, 0, "table " + table + ": reading stopped: " + sqlite3_errmsg(db_),
               "re-export this rank's profiling data (the database is damaged)");
    sqlite3_finalize(st);
    return false;
  }
  sqlite3_finalize(st);
  return true;
}

}  // namespace cs::recipes
