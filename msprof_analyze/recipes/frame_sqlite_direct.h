#pragma once
// A frame written as a new table straight into the database file's pages (io/sqlite), without
// SQLite's per-row work, when the result is what SQLite itself would store: every cell already
// of its column's type (TEXT: text or NULL; INTEGER: integers or NULL; REAL: numbers, NaN or
// NULL), no index, a plain file layout. Values read back through SQLite are the same as
// write_frame_sqlite's SQLite path gives (NaN as NULL, -0.0 as 0.0, as SQLite stores them).

#include <string>
#include <vector>

#include "frame/frame.h"
#include "io/diagnostics.h"

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

}  // namespace cs::recipes
