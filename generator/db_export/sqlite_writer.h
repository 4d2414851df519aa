#pragma once
// A small SQLite writer for the generator's DB export: a fresh database file written in one
// transaction (no journal, no fsync: the file is complete or the generator failed), prepared
// INSERTs bound by position, and the STRING_IDS interner the profiler databases use.
//
//   SqliteFile db;
//   if (!db.create(path, diag)) return false;
//   db.exec("CREATE TABLE T (a INTEGER, b TEXT)");
//   Insert ins = db.insert("T", 2);
//   ins.row(int64_t{1}, "x");
//   if (!db.finish(diag)) return false;

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "io/diagnostics.h"

namespace cs::generator {

// A value bound to one placeholder: NULL, an integer, a real or a text.
struct SqlValue {
  enum Kind : uint8_t { kNull, kInt, kReal, kText } kind = kNull;
  int64_t i = 0;
  double d = 0;
  std::string_view s;

  SqlValue() = default;
  SqlValue(std::nullopt_t) {}
  SqlValue(int v) : kind(kInt), i(v) {}
  SqlValue(int64_t v) : kind(kInt), i(v) {}
  SqlValue(long long v) : kind(kInt), i(static_cast<int64_t>(v)) {}
  SqlValue(uint64_t v) : kind(kInt), i(static_cast<int64_t>(v)) {}
  SqlValue(double v) : kind(kReal), d(v) {}
  SqlValue(std::string_view v) : kind(kText), s(v) {}
  SqlValue(const char* v) : kind(kText), s(v) {}
  SqlValue(const std::string& v) : kind(kText), s(v) {}
};

// One prepared "INSERT INTO table VALUES (?, ...)". Errors are kept in the file and reported by
// SqliteFile::finish().
class Insert {
 public:
  Insert(sqlite3_stmt* st, std::string* error) : st_(st), error_(error) {}
  Insert(Insert&& o) noexcept : st_(o.st_), error_(o.error_) { o.st_ = nullptr; }
  Insert(const Insert&) = delete;
  Insert& operator=(const Insert&) = delete;
  ~Insert();

  // Inserts one row; the values in column order.
  void row(std::initializer_list<SqlValue> values);

 private:
  sqlite3_stmt* st_;
  std::string* error_;
};

class SqliteFile {
 public:
  SqliteFile() = default;
  SqliteFile(const SqliteFile&) = delete;
  SqliteFile& operator=(const SqliteFile&) = delete;
  ~SqliteFile();

  // Creates `path` (an existing file is replaced) and begins the transaction. False with an
  // error diagnostic naming the file.
  bool create(const std::string& path, io::Diagnostics& diag);
  // Runs SQL statements (CREATE TABLE ...); a failure is kept for finish().
  void exec(const std::string& sql);
  // A prepared INSERT of `columns` values into `table`.
  Insert insert(const std::string& table, int columns);
  // Commits and closes. False with one error diagnostic (file, the first SQLite error, what to
  // do) when anything failed since create().
  bool finish(io::Diagnostics& diag);

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  std::string error_;
};

// STRING_IDS: each distinct string gets the next id from 0, in first-use order.
class StringIdTable {
 public:
  // The id of `s`, added when new.
  int64_t id(std::string_view s);
  // Writes every string into STRING_IDS (created by the caller).
  void write(SqliteFile& db) const;

 private:
  std::unordered_map<std::string, int64_t> ids_;
  std::vector<const std::string*> order_;
};

}  // namespace cs::generator
