#pragma once
// A read-only view of one SQLite file a profiler wrote (analysis.db, ascend_pytorch_profiler_N.db,
// msprof_*.db, ...).
//
// The file is opened through the URI `file:PATH?mode=ro&immutable=1`: SQLite neither writes nor
// locks it, so a reader can never modify the profiler's output, leave a journal beside it, or wait
// on a lock another process holds. Errors never throw and are never printed: they become
// io::Diagnostics naming the file, the table (when there is one) and what to do.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/diagnostics.h"
#include "io/py_format.h"
#include "io/sqlite/page_database.h"

struct sqlite3;
struct sqlite3_stmt;

namespace cs::db {

class Statement;

// The rows of a plain query answered from the file's pages (Database::page_scan).
struct PageScan {
  std::shared_ptr<io::sqlite::PagedDatabase> db;  // keeps the pages the rows point into
  io::sqlite::TableRows rows;
  std::vector<int> pick;  // per result column: the table's column, or -1 for the rowid
  std::vector<std::string> names;
  size_t decode = 0;  // the table's columns to decode per row: up to the last one picked
};

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
  // nullopt with one error in `diag` when it is missing, not a database, truncated or corrupt.
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
  std::string path_;                 // as given (messages name it)
  std::string sqlite_path_;          // absolute, for SQLite's open
  std::vector<std::string> tables_;  // sorted, read once at open
  std::unique_ptr<Paged> paged_;
};

// The result of one step of a statement.
enum class StepResult { kRow, kDone, kError };

// A prepared statement with typed access to the current row's columns. Move-only.
class Statement {
 public:
  Statement(Statement&&) noexcept;
  Statement& operator=(Statement&&) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Advances to the next row. On an error (SQLITE_CORRUPT in a page read late, I/O error, ...)
  // adds one error naming the file and table to `diag` and returns kError; the statement is then
  // finished.
  StepResult step(io::Diagnostics& diag);

  // Binds a 64-bit integer to parameter `index` (1-based). Returns false when SQLite refuses.
  bool bind(int index, int64_t value);

  int column_count() const;
  std::string column_name(int i) const;
  // True when the current row's column i is NULL.
  bool is_null(int i) const;
  // SQLite's storage class of the current row's column i (SQLITE_INTEGER, SQLITE_FLOAT,
  // SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL): pandas.read_sql keeps ints and floats apart.
  int storage_class(int i) const;
  // The column as an integer; nullopt when it is NULL or text that is not an integer. REAL values
  // with an integral value are accepted.
  std::optional<int64_t> int64_at(int i) const;
  // The column as a double; nullopt when it is NULL or text that is not a number.
  std::optional<double> double_at(int i) const;
  // The column as a Num: INTEGER as an int, REAL as a float, numeric text as what it spells;
  // nullopt when NULL or not a number.
  std::optional<io::Num> num_at(int i) const;
  // The column as text (numbers are rendered by SQLite); empty for NULL. Valid until the next
  // step.
  std::string_view text_at(int i) const;

  // The sqlite3 statement, for readers that decode columns themselves (hot loops); nullptr when
  // the rows come from the file's pages (paged()).
  sqlite3_stmt* handle() const { return stmt_; }
  // True when the rows come from the file's pages rather than SQLite.
  bool paged() const { return rows_ != nullptr; }
  // The current row's values as SQLite would return them (paged statements only).
  const std::vector<io::sqlite::StoredValue>& paged_row() const;

  // Which table this statement reads (for diagnostics).
  const std::string& table() const { return table_; }

 private:
  friend class Database;
  struct PagedRows;
  Statement(sqlite3_stmt* stmt, std::string file, std::string table);
  Statement(PageScan rows, std::string file, std::string table);
  // The current row's column i as its storage class and number or text (text only for TEXT and
  // BLOB values, without converting a number).
  struct Value {
    explicit Value(int t, int64_t iv = 0, double rv = 0, std::string_view tv = {})
        : type(t), i(iv), r(rv), text(tv) {}
    int type;
    int64_t i;
    double r;
    std::string_view text;
  };
  Value value_at(int i) const;

  sqlite3_stmt* stmt_ = nullptr;
  std::unique_ptr<PagedRows> rows_;
  std::string file_;
  std::string table_;
  bool finished_ = false;
};

// What to tell the user about a failed SQLite call with result code `code` (primary or extended).
std::string sqlite_hint(int code);

// What SQLite's sqlite3_column_int64, sqlite3_column_double and sqlite3_column_text give for a
// value of any storage class (the conversions made by SQLite itself, for readers of the pages).
int64_t sqlite_int64_of(const io::sqlite::StoredValue& v);
double sqlite_double_of(const io::sqlite::StoredValue& v);
std::string sqlite_text_of(const io::sqlite::StoredValue& v);

// What Statement::int64_at makes of a REAL value (a finite whole number within int64) and of a
// TEXT value (a whole decimal integer, as strtoll reads it); shared with readers that decode the
// file's records themselves.
std::optional<int64_t> int64_of_real(double v);
std::optional<int64_t> int64_of_text(std::string_view s);

}  // namespace cs::db
