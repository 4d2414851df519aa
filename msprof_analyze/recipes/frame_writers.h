#pragma once
// Writes a Frame as msprof-analyze's pandas calls do: DataFrame.to_csv (comma, "\n" lines,
// minimal quoting, index columns first) and DataFrame.to_sql(if_exists="replace") into SQLite
// (CREATE TABLE "name" (\n"col" TYPE,\n  ...\n) with REAL/INTEGER/TEXT from the dtype, and
// CREATE INDEX "ix_<table>_<cols>"ON ... for index columns).

#include <string>
#include <utility>
#include <vector>

#include "frame/frame.h"
#include "io/diagnostics.h"

namespace cs::recipes {

// Writes `f` to `path` as CSV. Returns false with an error in `diag` when the file cannot be
// written.
bool write_frame_csv(const frame::Frame& f, const std::string& path, io::Diagnostics& diag);

// Replaces table `table` of the SQLite database `db_path` (created when missing) with `f`. A new
// table whose cells SQLite would store unchanged, without an index, is written straight into the
// file's pages (msprof_analyze/recipes/frame_sqlite_direct.h), its rows encoded on up to `threads`
// threads; any other through SQLite. Returns false with an error in `diag` on failure.
bool write_frame_sqlite(const frame::Frame& f, const std::string& db_path, const std::string& table,
                        io::Diagnostics& diag, int threads = 1);

// write_frame_sqlite for several tables, in order, into one database: those that can go straight
// into the file's pages do while they can, the others through SQLite with the file read and
// written once for all of them (a reduce writing a table per rank: calibrate_npu_gpu). Returns
// false with an error in `diag` at the first table that cannot be written.
bool write_frames_sqlite(const std::vector<std::pair<std::string, const frame::Frame*>>& tables,
                         const std::string& db_path, io::Diagnostics& diag, int threads);

}  // namespace cs::recipes
