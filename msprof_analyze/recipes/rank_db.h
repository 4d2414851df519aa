#pragma once
// One rank's SQLite database as the recipes read it (through db::Database: read-only and
// immutable): queries return a Frame with each cell typed as SQLite stored it (pandas.read_sql's
// view of the rows); equal texts of a result column share one string.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/database.h"
#include "frame/frame.h"
#include "io/diagnostics.h"

namespace cs::recipes {

class RankDb {
 public:
  // Opens `path`; on failure ok() is false and `diag` has an error naming the file.
  RankDb(const std::string& path, io::Diagnostics& diag);

  bool ok() const { return db_.has_value(); }
  const std::string& path() const { return path_; }
  // True when the database has a table of this name.
  bool has_table(const std::string& table) const { return db_ && db_->has_table(table); }
  // The table's column names in order (empty when it is missing).
  std::vector<std::string> columns(const std::string& table) const;
  // Runs `sql` with integer parameters bound in order; the rows go to `out` (columns named as
  // the query names them). False with an error in `diag` (file, table, what to do) on failure.
  // The SQLite handle (nullptr when not open), e.g. to register functions a query calls.
  sqlite3* handle() const { return db_ ? db_->handle() : nullptr; }
  // The open database (ok() only), for the recipes' scans: SQLite opens the file only when a
  // query needs it.
  const db::Database& database() const { return *db_; }
  bool query(const std::string& sql, const std::vector<int64_t>& params, frame::Frame& out,
             const std::string& table, io::Diagnostics& diag);

 private:
  std::string path_;
  std::optional<db::Database> db_;
};

}  // namespace cs::recipes
