#pragma once
// Recognises the plainest query, `SELECT * FROM t` or `SELECT a, b FROM t` (bare names, nothing
// else but an optional NOT INDEXED), which the file's pages can answer exactly
// (io/sqlite/page_database) when SQLite would scan the table in rowid order for it.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/sqlite/page_database.h"

namespace cs::db {

struct SimpleSelect {
  std::string table;
  std::vector<std::string> columns;  // empty: *
  bool not_indexed = false;          // FROM t NOT INDEXED: SQLite scans the table, always
};

// The query's table and columns, or nullopt when `sql` is anything more.
std::optional<SimpleSelect> parse_simple_select(std::string_view sql);

// The table's column index of each selected column (-1: the rowid, named rowid, oid or _rowid_,
// allowed only with `rowid`), when SQLite answers `q` on `t` by scanning the table in rowid order
// (no index holds every column asked for) and every column is one of the table's; nullopt
// otherwise (SQLite then runs the query, and reports what is wrong).
std::optional<std::vector<int>> page_answerable(const SimpleSelect& q,
                                                const io::sqlite::PagedTable& t, bool rowid);

}  // namespace cs::db
