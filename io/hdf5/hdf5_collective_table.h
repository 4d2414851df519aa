#pragma once
// A table written into one HDF5 file by every process at once (parallel HDF5 over MPI-IO), each
// process its own rows, in the layout io/hdf5/hdf5_writer.h documents: the file is the same,
// byte for byte in its datasets (h5diff equal), whatever the number of processes, and the same
// as Hdf5File::write_table writes from one process holding every row.
//
// Where a process's rows go: it gives its rows as blocks, each with a key (for the per-rank
// tables, the rank); the table holds the blocks of every process in key order, each block's rows
// in the order given. So a process may own ranks 3, 7 and 12 and write their rows at the right
// offsets among the others' (the rows of a block are one hyperslab; a process's blocks, one
// selection of several). Keys are unique across processes.
//
//   // every process, at the same point (file opened with Hdf5File::create(path, diag, &coll)):
//   io::Table mine = rows_of_my_ranks();           // my ranks' rows, ranks ascending
//   std::vector<io::Hdf5RowBlock> blocks = {{3, 2}, {7, 1}};   // rank 3: 2 rows, rank 7: 1 row
//   auto how = write_table_collective(h5, mine, blocks, diag);
//
// Agreed before anything is created: the total rows (sum of the blocks), each string column's
// width (the longest value over every process, MPI_Allreduce(MAX) in effect) and whether the
// table can be written collectively at all: HDF5 1.10 writes no variable-length data through
// MPI-IO, so a table with a string column hdf5_variable_strings would store that way is not
// written (kSerial on every process) and is left to the root's serial writer.
//
// A table written in several collective calls (rows that arrive in batches):
//   auto t = Hdf5CollectiveTable::create(h5, schema, {widths}, expected_rows, diag);
//   t->append(batch1, blocks1, diag); t->append(batch2, blocks2, diag); t->finish(diag);
// Each append puts its rows after every earlier append's (the datasets grow, H5Dset_extent).
//
// The file must be opened collectively (Hdf5File::create with a collective) or serially (one
// process, no MPI at all): the same calls work on both. Every call here is collective: every
// process calls it, in the same order, with the same table name and columns.

#include <cstdint>
#include <optional>
#include <vector>

#include "io/collective.h"
#include "io/diagnostics.h"
#include "io/hdf5/hdf5_handle.h"
#include "io/hdf5/hdf5_writer.h"
#include "io/table.h"

namespace cs::io {

// A block of one process's rows placed by its key (io/collective.h).
using Hdf5RowBlock = RowBlock;

enum class Hdf5CollectiveWrite {
  kWritten,  // the table is in the file
  kSerial,   // nothing written: a column needs variable-length strings (the root writes it)
  kFailed,   // an error (in `diag` on the process that saw it; the file is failed)
};

class Hdf5CollectiveTable {
 public:
  // Collective. Creates group /<schema.name> with one dataset per column of `schema` (its rows
  // are not written), `expected_rows` long, string column k of `string_widths[k]` bytes (the
  // widths of the string columns in column order, the same on every process). nullopt with an
  // error in `diag` when the table cannot be made (bad name, HDF5 error: the file is failed).
  static std::optional<Hdf5CollectiveTable> create(Hdf5File& file, const Table& schema,
                                                   const std::vector<size_t>& string_widths,
                                                   uint64_t expected_rows, Diagnostics& diag,
                                                   const Hdf5TableOptions& opt = {});

  // Collective: appends every process's rows (`local`, with the schema's columns, cut into
  // `blocks` in their order) after the rows appended before. False (on every process) when a
  // process's rows do not fit (other columns, a string wider than its column, keys repeated)
  // or HDF5 fails; the file is failed then.
  bool append(const Table& local, const std::vector<Hdf5RowBlock>& blocks, Diagnostics& diag);

  // Collective: the datasets cut to the rows appended (when fewer than expected) and the group's
  // "rows" attribute set to them; the table is closed.
  bool finish(Diagnostics& diag);

  uint64_t rows() const { return rows_; }

 private:
  Hdf5CollectiveTable(Hdf5File& file, std::string name) : file_(&file), name_(std::move(name)) {}
  // Collective: whether `file` is still good on every process; where it is good but another
  // process's failed, it is failed here too (one error naming `table`), so that every process
  // stops together instead of one waiting alone in a collective HDF5 call.
  static bool good_everywhere(Hdf5File& file, const std::string& table, Diagnostics& diag);
  bool fail(Diagnostics& diag, const std::string& what);

  Hdf5File* file_;
  std::string name_;
  Hdf5Group group_;
  std::vector<Hdf5Dataset> datasets_;
  std::vector<ColumnType> types_;
  std::vector<size_t> widths_;  // bytes per row of each column (strings: their width)
  uint64_t rows_ = 0;           // appended so far
  uint64_t extent_ = 0;         // the datasets' length
};

// Collective: `local` (this process's rows of the table, cut into `blocks`) written as one table
// with every other process's rows: widths and total agreed, created, appended once, finished.
Hdf5CollectiveWrite write_table_collective(Hdf5File& file, const Table& local,
                                           const std::vector<Hdf5RowBlock>& blocks,
                                           Diagnostics& diag, const Hdf5TableOptions& opt = {});

}  // namespace cs::io
