#pragma once
// Reads one table of an SQLite database file directly from its pages (the file format of
// https://www.sqlite.org/fileformat2.html), without the SQLite library: the schema on page 1's
// b-tree, then the table's b-tree in rowid order, overflow pages followed. Opening a database
// with SQLite parses every CREATE statement of its schema, which for a profiler's database with
// dozens of tables costs far more than reading one small table (META_DATA).
//
// Only plain rowid tables whose CREATE TABLE lists bare columns (a name and an optional type:
// no constraint, collation or default that could change what SQLite's query returns) in a UTF-8
// database are read; for anything else, and for any inconsistency in the file, the answer is
// kDeclined and the caller asks SQLite (which also reports what is wrong with the file).

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace cs::io::sqlite {

// One value as the record stores it (text and blobs point into the reader's buffers).
struct StoredValue {
  enum class Kind { kNull, kInt, kReal, kText, kBlob };
  Kind kind = Kind::kNull;
  int64_t i = 0;
  double r = 0;
  std::string_view bytes;
};

enum class TableRead { kRead, kNoTable, kDeclined };

// True when `a` and `b` name the same SQL table or column (ASCII case ignored, as SQLite does).
bool sql_name_equal(std::string_view a, std::string_view b);
// The index of column `name` in `columns` (as sql_name_equal matches), or -1.
int column_index(const std::vector<std::string>& columns, std::string_view name);

// Calls `row` for each row of table `table` (matched as SQLite matches names: ASCII case
// ignored) in rowid order, with one value per column of `columns` (the table's column names, in
// order); `row` returns false to stop. kNoTable: the schema has no such table.
TableRead read_table(const std::string& path, std::string_view table,
                     std::vector<std::string>& columns,
                     const std::function<bool(const std::vector<StoredValue>&)>& row);

}  // namespace cs::io::sqlite
