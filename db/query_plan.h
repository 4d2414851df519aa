#pragma once
// What SQLite's query planner would do with a statement on one database, for readers that answer
// a query from the file's pages (db::page_scan) in the order SQLite would: a reader written from
// one plan is right only where SQLite plans the query that way.

#include <string>
#include <vector>

struct sqlite3;

namespace cs::db {

class Database;

// True when SQLite's plan for `sql` (EXPLAIN QUERY PLAN's detail lines, in order) is `expected`.
// The answer is kept per database schema (every CREATE statement): without sqlite_stat tables
// SQLite plans from the schema alone, so ranks written by one profiler version plan the query
// once. With `also`, it must hold too: a further fact of the schema the caller relies on (e.g.
// an index's columns), checked and kept with the answer. The schema is read from the file's pages,
// so SQLite opens the file only when the answer for this schema is not known yet.
bool query_plan_is(const Database& db, const std::string& sql,
                   const std::vector<std::string>& expected, bool (*also)(sqlite3*) = nullptr);

// True when the profilers' TaskIndex has the keys (startNs, globalTaskId), ascending, binary
// collation: then its order is (startNs, globalTaskId, rowid), NULLs first, for integer keys.
bool task_index_is_start_then_task_id(sqlite3* db);

}  // namespace cs::db
