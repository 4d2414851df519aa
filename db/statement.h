#pragma once
// A prepared query on a profiler database (db/database: Database::prepare), its rows given by
// SQLite or, for a plain scan of a table, by the file's pages (db/page_scan), with the same typed
// access to each row either way.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "db/page_scan.h"
#include "io/diagnostics.h"
#include "io/py_format.h"
#include "io/sqlite/page_database.h"

struct sqlite3_stmt;

namespace cs::db {

class Database;

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

}  // namespace cs::db
