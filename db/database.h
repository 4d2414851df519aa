#pragma once
// A read-only view of one SQLite file a profiler wrote (analysis.db, ascend_pytorch_profiler_N.db,
// msprof_*.db, ...).
//
// The file is opened through the URI `file:PATH?mode=ro&immutable=1`: SQLite neither writes nor
// locks it, so a reader can never modify the profiler's output, leave a journal beside it, or wait
// on a lock another process holds. A file with committed changes still beside it (a non-empty
// -wal, a hot -journal: io/sqlite/pending_sidecar), which `immutable` would ignore, is read from
// a private copy with those changes applied (db/private_copy), or refused with one error. Errors
// never throw and are never printed: they become io::Diagnostics naming the file, the table (when
// there is one) and what to do.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "db/page_scan.h"
#include "db/sqlite_messages.h"
#include "db/sqlite_values.h"
#include "db/statement.h"
#include "io/diagnostics.h"
#include "io/sqlite/page_database.h"

struct sqlite3;

namespace cs::db {

class PrivateCopy;

// One open database file. Move-only; closes on destruction.
class Database {
 public:
  Database() = default;
  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  // Opens `path` read-only and immutable and checks it is a readable SQLite database (reads its
  // schema, from the file's pages when the page reader reads them, else through SQLite). Returns
  // nullopt with one error in `diag` when it is missing, not a database, truncated or corrupt, or
  // has pending changes beside it that cannot be applied to a private copy.
  static std::optional<Database> open(const std::string& path, io::Diagnostics& diag);

  const std::string& path() const { return path_; }

  // True when the schema has a table (or view) of this exact name.
  bool has_table(std::string_view table) const;
  // Column names of a table in declaration order; empty when the table does not exist.
  std::vector<std::string> columns(std::string_view table) const;
  // True when the table exists and has this column.
  bool has_column(std::string_view table, std::string_view column) const;
  // Names of all tables, sorted.
  std::vector<std::string> tables() const;

  // Checks that `table` exists with every one of `columns`; otherwise adds one error naming the
  // file, the table and the missing column(s) and returns false.
  bool require(std::string_view table, const std::vector<std::string>& columns,
               io::Diagnostics& diag) const;

  // Prepares `sql`; `table` names the table it reads, for diagnostics. Returns nullopt with an
  // error in `diag` when SQLite refuses the statement. A plain `SELECT * FROM t` or
  // `SELECT a, b FROM t` that SQLite would answer by scanning the table is answered from the
  // file's pages instead (db/simple_select, io/sqlite/page_database: the same rows and values,
  // without SQLite's virtual machine), unless that reader declines the table.
  std::optional<Statement> prepare(std::string_view sql, std::string_view table,
                                   io::Diagnostics& diag) const;

  // The sqlite3 handle, for callers that need an API this class does not wrap; SQLite opens the
  // file on this first call (a database the page reader reads is not opened by SQLite until a
  // query needs it). nullptr when SQLite cannot open it. Not for concurrent first calls.
  sqlite3* handle() const;
  // `sql` answered from the file's pages when it is a plain query that SQLite would answer by
  // scanning the table in rowid order (db/simple_select) and the page reader reads the table;
  // nullopt otherwise. With `rowid`, rowid/oid/_rowid_ may be asked for (their result names are
  // then not SQLite's).
  std::optional<PageScan> page_scan(std::string_view sql, bool rowid = false) const;

  // The file's pages (read on the first plain query), shared with the statements reading them
  // (internal to db/database.cpp).
  struct Paged;

 private:
  // Opens the file with SQLite (db_); SQLite's result code, its message in open_error_ when it
  // fails.
  int open_sqlite() const;
  void close();

  mutable sqlite3* db_ = nullptr;  // opened by handle() when first needed
  mutable std::string open_error_;
  std::string path_;                   // as given (messages name it)
  std::string sqlite_path_;            // absolute (or the private copy's), for SQLite's open
  std::vector<std::string> tables_;    // sorted, read once at open
  std::unique_ptr<PrivateCopy> copy_;  // what is read when the file has pending changes
  std::unique_ptr<Paged> paged_;
};

}  // namespace cs::db
