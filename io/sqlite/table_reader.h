#pragma once
// Reads one table of an SQLite database file directly from its pages (io/sqlite/page_database),
// without the SQLite library. Opening a database with SQLite parses every CREATE statement of its
// schema, which for a profiler's database with dozens of tables costs far more than reading one
// small table (META_DATA). For a table the page reader declines (see page_database.h) or any
// inconsistency in the file the answer is kDeclined and the caller asks SQLite (which also
// reports what is wrong with the file).

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "io/sqlite/page_database.h"

namespace cs::io::sqlite {

// Calls `row` for each row of table `table` (matched as SQLite matches names: ASCII case
// ignored) in rowid order, with one value per column of `columns` (the table's column names, in
// order); `row` returns false to stop. kNoTable: the schema has no such table.
TableRead read_table(const std::string& path, std::string_view table,
                     std::vector<std::string>& columns,
                     const std::function<bool(const std::vector<StoredValue>&)>& row);

}  // namespace cs::io::sqlite
