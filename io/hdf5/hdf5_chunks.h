#pragma once
// A table's column data cut into the chunks of its HDF5 datasets and filtered as the HDF5
// library filters them before storing (shuffle, then deflate: https://docs.hdfgroup.org/hdf5/
// "Filters", H5Z shuffle and deflate), without the library: pure computation, run on any
// thread and for several tables at once, while the one thread allowed to call HDF5 only stores
// the finished chunks (H5Dwrite_chunk, io/hdf5/hdf5_writer.h). The layout (element size, rows per
// chunk) is the one io/hdf5/hdf5_writer.h documents.
//
//   Hdf5Chunks c = filter_table_chunks(table, opt, threads);  // no lock needed
//   h5.write_table(table, diag, opt, &c);                      // under the HDF5 lock

#include <cstddef>
#include <cstdint>
#include <vector>

#include "io/table.h"

namespace cs::io {

// The bytes of a variable-length string's reference in a dataset (HDF5's hvl_t).
inline constexpr size_t kVariableStringBytes = 16;

// The stored chunks of one column's dataset.
struct Hdf5ColumnChunks {
  size_t element_size = 0;  // bytes per row (a string column: its longest value, at least 1)
  size_t chunk_rows = 0;    // rows per chunk (the last chunk padded with zeros, as HDF5 pads it)
  // Filtered bytes, in chunk order; none for variable-length strings (hdf5_variable_strings),
  // which only HDF5 itself can store.
  std::vector<std::vector<unsigned char>> chunks;
};

struct Hdf5Chunks {
  bool shuffle = false;
  int deflate_level = 0;                  // the filters applied (0: no deflate)
  std::vector<Hdf5ColumnChunks> columns;  // one per table column, in order
};

// True when string column `c` is stored as variable-length UTF-8 strings rather than padded to
// its longest value: when that value is over 1 KiB and padding every row to it would take more
// than 16 times the bytes of the values themselves (one 4 MB operator name among short ones).
// Each value then costs its own bytes (kept by HDF5, uncompressed, in the file's global heap);
// short strings stay fixed-length, which deflate shrinks far better. A function of the column's
// values only: the file is the same for any process or thread count.
bool hdf5_variable_strings(const Column& c);
// The same rule from a string column's longest value, the sum of (value bytes + 1) over its rows
// and its rows: what a table spread over processes decides with (io/hdf5/hdf5_collective_table.h).
bool hdf5_variable_strings(size_t longest, size_t bytes, size_t rows);

// Bytes per row of column `c` in its dataset (8 for numbers; a string column's longest value;
// 16, HDF5's reference to the heap, for variable-length strings).
size_t hdf5_element_size(const Column& c);

// Rows per chunk of a column of `rows` rows and `element_size` bytes: min(rows, max_rows,
// 1 MiB / element_size), at least 1.
size_t hdf5_chunk_rows(size_t rows, size_t max_rows, size_t element_size);

// How a chunk is deflated. kLikeHdf5: zlib's default strategy, the bytes HDF5's own deflate
// filter writes (compress2 at the level). kRunLength: zlib's Z_RLE strategy, for chunks only this
// code ever writes (the streamed tables, io/hdf5/hdf5_append.h): a valid deflate stream that any
// reader inflates the same, made about twice as fast on number columns (shuffled doubles) and
// smaller on zero-padded string columns, larger on number columns (docs/scale.md).
enum class DeflateStrategy { kLikeHdf5, kRunLength };

// One chunk's raw bytes (`element_size` bytes per row, as the dataset stores them) filtered as
// HDF5 filters it: shuffled when `shuffle`, then deflated at `deflate_level` when > 0 (at most 9)
// with `strategy`. Throws std::runtime_error when zlib fails.
std::vector<unsigned char> filter_chunk(std::vector<unsigned char> raw, size_t element_size,
                                        bool shuffle, int deflate_level,
                                        DeflateStrategy strategy = DeflateStrategy::kLikeHdf5);

// Every column of `t` cut into chunks and filtered (shuffle when `shuffle`, deflate at
// `deflate_level` when > 0), the chunks computed on up to `threads` threads. The result does not
// depend on the thread count.
Hdf5Chunks filter_table_chunks(const Table& t, size_t max_chunk_rows, bool shuffle,
                               int deflate_level, int threads);

}  // namespace cs::io
