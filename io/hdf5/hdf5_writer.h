#pragma once
// The generic HDF5 writer for io::Table (cluster_analysis.h5, comparison.h5), readable by h5py
// with no plugins. Serial (one process writes, HDF5's POSIX driver), or opened by every process
// with HDF5's MPI-IO driver (create with an io::Hdf5Collective of 2+ processes): then only
// collective writes (io/hdf5/hdf5_collective_table.h) until end_collective(), after which the
// root alone goes on serially (write_table, set_attribute, finish). Not thread-safe (Debian's HDF5
// is built without H5_HAVE_THREADSAFE): all HDF5 calls of the process must come from one thread at
// a time. Finish every file before MPI_Finalize (HDF5 shuts down there when MPI was initialised
// first).
//
//   Diagnostics diag;
//   auto h5 = Hdf5File::create(out_dir + "/cluster_analysis.h5", diag);
//   if (!h5) return;                    // diag says why
//   h5->write_table(slow_ranks, diag);  // -> group /slow_ranks
//   write_hdf5_meta(*h5, meta, diag);   // -> /meta attributes (io/hdf5/hdf5_meta.h)
//   h5->finish(diag);                   // closes and renames <path>.tmp to <path>
//
// Layout of a table T with columns c1..cn: group /T holding one 1-D dataset per column, named
// like the column, in creation order (h5py lists them in that order); int columns as int64,
// doubles as float64, strings as fixed-length NUL-padded UTF-8 as wide as the longest value
// (h5py: ds.asstr()[:] gives str; variable-length strings would be stored uncompressed, ~50x
// larger). Each dataset is chunked (min(rows, 64 Ki, 1 MiB / element size) rows, at least 1),
// shuffle + deflate 1, max size unlimited, and has a "units" string attribute ("" when
// unitless). The group has attributes "rows" (int64) and "columns" (the column names in table
// order). Attributes are scalar variable-length UTF-8 strings (h5py: str), int64 or float64.
//
// The file is written as "<path>.tmp" and renamed by finish(); a writer destroyed without
// finish() (an error, an exception, a crash) never leaves a file under the final name.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "io/diagnostics.h"
#include "io/hdf5/hdf5_chunks.h"
#include "io/hdf5/hdf5_collective.h"
#include "io/hdf5/hdf5_handle.h"
#include "io/table.h"

namespace cs::io {

// An attribute value: a UTF-8 string, an int64 or a double.
using Hdf5Value = std::variant<std::string, int64_t, double>;

struct Hdf5TableOptions {
  size_t chunk_rows = 64 * 1024;  // rows per chunk at most (also <= 1 MiB per chunk, >= 1)
  int deflate_level = 1;          // 0 = no compression; 1: 1.7x faster than 4, 3% larger
  bool shuffle = true;
  // Threads filtering (shuffle, deflate) the chunks one append of a streamed table fills
  // (Hdf5TableAppender); the chunks are stored in the same order whatever the count.
  int filter_threads = 1;
};

class Hdf5File {
 public:
  // Creates (truncates) "<path>.tmp". nullopt with an error in `diag` when it cannot.
  // Example: Hdf5File::create("/out/cluster_analysis.h5", diag).
  // `coll` with 2+ processes: every process calls this at the same point and the file is opened
  // with the MPI-IO driver (collective); process 0 owns it (the ledger, the removal of a failed
  // file, finish()). `coll` must outlive the collective phase (end_collective()).
  static std::optional<Hdf5File> create(const std::string& path, Diagnostics& diag,
                                        const Hdf5Collective* coll = nullptr);

  Hdf5File(Hdf5File&& other) noexcept;
  Hdf5File& operator=(Hdf5File&& other) noexcept;
  Hdf5File(const Hdf5File&) = delete;
  Hdf5File& operator=(const Hdf5File&) = delete;
  // Without finish(): closes and deletes "<path>.tmp".
  ~Hdf5File();

  // Writes table `t` as group "/<t.name>" (layout above). False with an error in `diag` when
  // the name is empty or holds '/', a table of that name exists, column lengths differ, a
  // column name is empty/duplicate/holds '/' (nothing is written then), or HDF5 fails (e.g.
  // disk full): then the file is marked failed, later tables and attributes are skipped without
  // another error, and finish() will not publish it.
  // `filtered`: the table's chunks filtered beforehand (filter_table_chunks with opt's
  // chunk_rows, shuffle and deflate_level, io/hdf5/hdf5_chunks.h), stored as they are: the same
  // file, the compression done outside the HDF5 lock. Ignored when they do not fit.
  bool write_table(const Table& t, Diagnostics& diag, const Hdf5TableOptions& opt = {},
                   const Hdf5Chunks* filtered = nullptr);

  // Sets (or replaces) attribute `name` on the object at `object_path` ("/", "/meta",
  // "/slow_ranks/score"); missing groups on the path are created. Example:
  // set_attribute("/meta", "ranks", int64_t{16}, diag).
  bool set_attribute(const std::string& object_path, const std::string& name,
                     const Hdf5Value& value, Diagnostics& diag);

  // Ends the collective phase (every process calls it, at the same point): the processes agree
  // whether any write failed, close the file together, and the root reopens it serially. True on
  // the root when it may go on writing; false on every other process (its part is done) and on
  // the root when the file failed (then removed; the root's `diag` says why). Without a
  // collective phase (serial file): true unless the file failed.
  bool end_collective(Diagnostics& diag);

  // The collective this file is being written with (2+ processes), null when serial.
  const Hdf5Collective* collective() const { return coll_; }
  // True on the process that owns the file (process 0, or the only one).
  bool owner() const { return owner_; }

  // Closes the file and renames "<path>.tmp" to `path`. False (and no file under `path`) when
  // an earlier call failed or closing/renaming fails. The object is closed afterwards.
  bool finish(Diagnostics& diag);

  const std::string& path() const { return path_; }
  bool failed() const { return failed_; }
  hid_t id() const { return file_.get(); }  // for callers adding their own datasets

 private:
  Hdf5File(std::string path, Hdf5FileHandle file, const Hdf5Collective* coll);
  friend class Hdf5CollectiveTable;  // writes into the file collectively, fails it
  friend class Hdf5TableAppender;    // appends to a table in several calls, fails it
  // Records an HDF5 failure: error in `diag` with the HDF5 error stack, marks the file failed.
  bool fail(Diagnostics& diag, const std::string& what, const std::string& hint = {});
  void abandon();

  std::string path_;
  Hdf5FileHandle file_;
  bool failed_ = false;
  const Hdf5Collective* coll_ = nullptr;  // while written collectively (2+ processes)
  bool owner_ = true;
};

}  // namespace cs::io
