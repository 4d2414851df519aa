#pragma once
// A frame written as a new table straight into the database file's pages (io/sqlite), without
// SQLite's per-row work, when the result is what SQLite itself would store: every cell already
// of its column's type (TEXT: text or NULL; INTEGER: integers or NULL; REAL: numbers, NaN or
// NULL), no index, a plain file layout. Values read back through SQLite are the same as
// write_frame_sqlite's SQLite path gives (NaN as NULL, -0.0 as 0.0, as SQLite stores them).

#include <memory>
#include <string>
#include <vector>

#include "frame/frame.h"
#include "io/diagnostics.h"
#include "io/sqlite/database_file_appender.h"
#include "io/sqlite/page_database.h"

namespace cs::recipes {

enum class DirectWrite { kWritten, kNotApplicable, kFailed };

// Adds `f` as table `table` (created by `create`; `sql_types` its columns' declared types) to the
// database file `db_path`, its rows encoded on up to `threads` threads (the file is the same for
// any number). kNotApplicable: nothing was written, write with SQLite. kFailed: an error naming
// `shown` is in `diag`.
DirectWrite write_frame_sqlite_direct(const frame::Frame& f,
                                      const std::vector<const char*>& sql_types,
                                      const std::string& db_path, const std::string& table,
                                      const std::string& create, const std::string& shown,
                                      io::Diagnostics& diag, int threads = 1);

// write_frame_sqlite_direct for a table given a piece of rows at a time (communication_time_sum's
// tables walked a rank at a time, msprof_analyze/recipes/communication_time_sum/
// time_sum_stream.h): the same file as the whole table written at once.
class DirectTableStream {
 public:
  DirectTableStream();
  ~DirectTableStream();
  // Starts table `table` (as write_frame_sqlite_direct; `kinds`: each column's cell kinds over
  // every row to come, frame::kind_bit bits). kWritten: started, add the rows then finish();
  // kNotApplicable: nothing written, write with SQLite; kFailed: an error naming `shown` in `diag`.
  DirectWrite open(const std::vector<uint8_t>& kinds, const std::vector<const char*>& sql_types,
                   const std::string& db_path, const std::string& table, const std::string& create,
                   const std::string& shown, io::Diagnostics& diag);
  // Appends `rows` (the table's columns, in order).
  void add(const frame::Frame& rows);
  // Writes the table into the file. False with an error in `diag` when it cannot be written.
  bool finish(io::Diagnostics& diag);

 private:
  std::unique_ptr<io::sqlite::DatabaseFileAppender> file_;
  std::unique_ptr<io::sqlite::TableBtreeBuilder> tree_;
  std::vector<io::sqlite::Affinity> affinity_;
  std::string table_, create_, shown_, bytes_;
};

}  // namespace cs::recipes
