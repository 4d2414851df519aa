#pragma once
// Read-only access to one rank's SQLite database for the recipes: opened immutable (the reader
// never writes, locks or creates journal files next to the profiler's data), queries return a
// Frame with each cell typed as SQLite stored it (pandas.read_sql's view of the rows).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/diagnostics.h"
#include "recipes/frame.h"

struct sqlite3;

namespace cs::recipes {

class RankDb {
 public:
  // Opens `path` read-only; on failure ok() is false and `diag` has an error naming the file.
  RankDb(const std::string& path, io::Diagnostics& diag);
  ~RankDb();
  RankDb(const RankDb&) = delete;
  RankDb& operator=(const RankDb&) = delete;

  bool ok() const { return db_ != nullptr; }
  const std::string& path() const { return path_; }
  // True when the database has a table of this name.
  bool has_table(const std::string& table);
  // The table's column names in order (empty when it has none or is missing).
  std::vector<std::string> columns(const std::string& table);
  // Runs `sql` with integer parameters bound in order; the rows go to `out` (columns named as
  // the query names them). False with an error in `diag` (file, table, what to do) on failure.
  bool query(const std::string& sql, const std::vector<int64_t>& params, Frame& out,
             const std::string& table, io::Diagnostics& diag);

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace cs::recipes
