#pragma once
// A table written to a serial HDF5 file (one process: the root after the collective phase, or a
// run without MPI) a chunk of rows at a time, never held whole: the layout io/hdf5/hdf5_writer.h
// documents, each dataset growing (H5Dset_extent) as rows come. The per-op tables
// (communication_ops, communication_bandwidth, communication_matrix) are streamed this way
// (cluster/table_sink.h: TableSink::open_stream).
//
//   auto t = Hdf5TableAppender::create(h5, schema, {{5, 5.0}, {20, 19.5}}, diag);  // 2 strings
//   t->append(rows_of_batch_1, diag);  // any number of rows, same columns as schema
//   t->append(rows_of_batch_2, diag);
//   t->finish(diag);                   // the last partial chunk stored, "rows" set
//
// The string columns' sizes must be known before the first row (a fixed-length HDF5 string type
// cannot grow): each string column is as wide as the longest value given (a value wider fails the
// append with a message), or stored as variable-length UTF-8 by the whole-table writer's rule
// (io/hdf5/hdf5_chunks.h: hdf5_variable_strings) applied to the longest value and the mean given
// (a 4 MB operator name among short ones, not a long group tuple on every row). Either way h5py
// reads the values with ds.asstr()[:], and h5diff finds a table streamed equal to the same table
// written whole.
//
// Memory: one chunk per column (at most 1 MiB each: hdf5_chunk_rows), filled row by row; a full
// chunk is filtered here (shuffle, then deflate with zlib's run-length strategy:
// io/hdf5/hdf5_chunks.h, DeflateStrategy::kRunLength, a deflate stream HDF5 and h5py read like
// any other, not the bytes HDF5's own filter would store) and stored with H5Dwrite_chunk, so HDF5
// never reads a chunk back. The chunks one append
// fills (up to about 1 MiB of them) are filtered together on Hdf5TableOptions::filter_threads
// threads, then stored in the order they filled, column after column, as one thread would. Not
// thread-safe, like every HDF5 call (io/hdf5/hdf5_writer.h): only the filtering runs on other
// threads, never an HDF5 call.
//
// Failures: an HDF5 error (a full disk) reports one error in `diag` and fails the file
// (Hdf5File::failed(): nothing is published under the final name); later calls return false
// without another message.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/diagnostics.h"
#include "io/hdf5/hdf5_handle.h"
#include "io/hdf5/hdf5_writer.h"
#include "io/string_column_size.h"
#include "io/table.h"

namespace cs::io {

class Hdf5TableAppender {
 public:
  // Creates group /<schema.name> with one empty dataset per column of `schema` (its rows are
  // ignored). `strings`: the size of each string column, in column order. nullopt with
  // an error in `diag` when the table cannot be made (bad or duplicate name, a missing width,
  // an HDF5 error: the file is failed then), or silently when the file failed before.
  static std::optional<Hdf5TableAppender> create(Hdf5File& file, const Table& schema,
                                                 const std::vector<StringColumnSize>& strings,
                                                 Diagnostics& diag,
                                                 const Hdf5TableOptions& opt = {});

  Hdf5TableAppender(Hdf5TableAppender&&) noexcept = default;
  Hdf5TableAppender& operator=(Hdf5TableAppender&&) noexcept = default;

  // Appends `rows` (the schema's columns, in order) after the rows appended before. False with
  // an error when they do not fit (other columns, a string wider than its column: nothing of
  // them is written, the file is failed) or HDF5 fails.
  bool append(const Table& rows, Diagnostics& diag);

  // Stores the last partial chunks and sets the group's "rows" attribute. Call once.
  bool finish(Diagnostics& diag);

  // Rows appended so far.
  uint64_t rows() const { return rows_; }

 private:
  struct Col {
    ColumnType type = ColumnType::kDouble;
    size_t width = 8;         // bytes per row (fixed strings: the width given)
    bool variable = false;    // variable-length strings
    uint64_t chunk_rows = 1;  // rows per chunk
    Hdf5Dataset ds;
    std::vector<unsigned char> raw;  // the chunk being filled (fixed-size columns)
    std::vector<std::string> text;   // the rows not yet written (variable-length strings)
    uint64_t pending = 0;            // rows in raw / text
    uint64_t stored = 0;             // rows stored before them (a multiple of chunk_rows)
  };
  explicit Hdf5TableAppender(Hdf5File& file, std::string name)
      : file_(&file), name_(std::move(name)) {}
  // A filled chunk waiting to be filtered and stored (see flush()).
  struct Full {
    size_t col = 0;
    uint64_t offset = 0;             // its first row in the dataset
    std::vector<unsigned char> raw;  // fixed-size columns: its bytes, filtered by flush()
    std::vector<std::string> text;   // variable-length strings: its values
  };
  bool fail(Diagnostics& diag, const std::string& what);
  void take(Col& c);  // the pending rows of `c` as one chunk, into full_
  bool flush();       // every chunk of full_ filtered (on filter_threads_) and stored, in order

  Hdf5File* file_;
  std::string name_;
  Hdf5Group group_;
  std::vector<Col> cols_;
  bool shuffle_ = true;
  int level_ = 0;  // deflate level applied (0: none)
  int filter_threads_ = 1;
  std::vector<Full> full_;  // chunks filled, not yet stored
  size_t full_bytes_ = 0;   // their raw bytes
  uint64_t rows_ = 0;
  bool finished_ = false;
};

}  // namespace cs::io
