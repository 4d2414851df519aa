#pragma once
// Writes a Frame as msprof-analyze's pandas calls do: DataFrame.to_csv (comma, "\n" lines,
// minimal quoting, index columns first) and DataFrame.to_sql(if_exists="replace") into SQLite
// (CREATE TABLE "name" (\n"col" TYPE,\n  ...\n) with REAL/INTEGER/TEXT from the dtype, and
// CREATE INDEX "ix_<table>_<cols>"ON ... for index columns).

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "frame/frame.h"
#include "io/diagnostics.h"
#include "msprof_analyze/recipes/frame_sqlite_direct.h"
#include "msprof_analyze/recipes/recipe.h"

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

// write_frame_sqlite of a table given a piece of rows at a time, when its columns' cell kinds over
// every row are known before the first (communication_time_sum's tables walked a rank at a time
// from the parked ranks): the same table, straight into the file's pages when it can go there,
// else through SQLite.
class FrameTableStream {
 public:
  // Starts table `table` of `db_path` with `columns` (names, the kinds of every row's cells).
  FrameTableStream(const std::string& db_path, const std::string& table,
                   const std::vector<ColumnKinds>& columns, io::Diagnostics& diag);
  ~FrameTableStream();
  FrameTableStream(const FrameTableStream&) = delete;
  FrameTableStream& operator=(const FrameTableStream&) = delete;
  // Appends `rows` (the table's columns in order, cells of the kinds given). False (with an error
  // in `diag`) once the table cannot be written.
  bool add(const frame::Frame& rows);
  // Ends the table: written to the file. False with an error in `diag` on failure.
  bool finish();

 private:
  struct Sqlite;
  std::string db_path_, table_;
  io::Diagnostics& diag_;
  std::vector<frame::Dtype> dtypes_;
  DirectTableStream direct_;
  bool direct_on_ = true, ok_ = true;
  std::unique_ptr<Sqlite> sqlite_;
};

}  // namespace cs::recipes
