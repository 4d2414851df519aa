#pragma once
// communication_ops and communication_bandwidth (analysis/comm_tables.h) built a batch of group
// tuples at a time (msprof_analyze/documents/comm_batches.h) and handed on batch by batch
// (cluster/table_sink.h streams each batch's rows to the CSV and HDF5 files), so neither table is
// ever held whole.
//
// Row order: group tuple first, in the order of cluster_communication.json's top level (the
// tuples' first appearance over the ranks in rank order: the same at any process count, batch
// size or thread count); within a tuple by step (natural: "step2" before "step10"), group, op
// (natural), rank, for communication_bandwidth step, group, rank, transport. (Before issue 38 the
// tables were sorted step first over every tuple, which needs every row at once.) The tuple orders
// the rows but is not a column: the tables would grow with ranks x group size.
//
//   const CommOpTableShapes shapes = comm_op_table_shapes(batches.widths());
//   for (size_t b = 0; b < batches.size(); ++b) {
//     CommOpChunk c = comm_op_chunk(batches.load(b).index);  // c.ops, c.bandwidth: this batch
//   }

#include <vector>

#include "io/string_column_size.h"
#include "io/table.h"
#include "msprof_analyze/documents/cluster_communication.h"
#include "msprof_analyze/documents/comm_batches.h"

namespace cs::analysis {

// The two tables' columns (no rows) and the sizes of their string columns in column order (the
// longest value each can hold and their mean bytes, from the batches' first pass): what a
// streamed table needs before its first row.
struct CommOpTableShapes {
  io::Table ops, bandwidth;
  std::vector<io::StringColumnSize> ops_strings, bandwidth_strings;
};
CommOpTableShapes comm_op_table_shapes(const documents::CommStringWidths& widths);

// One batch's rows of both tables, in table order (above); string columns dictionary-encoded.
struct CommOpChunk {
  io::Table ops, bandwidth;
};
CommOpChunk comm_op_chunk(const documents::CommIndex& batch);
// The same rows as comm_op_chunk, built on up to `threads` threads: one chunk per run of the
// batch's tuples (runs of about equal reports), in order; together they are comm_op_chunk's rows.
std::vector<CommOpChunk> comm_op_chunks(const documents::CommIndex& batch, int threads);

// Appends the rows of `from` to `into` (same columns, in order; string columns plain or
// encoded, re-encoded into `into`'s kind). For tests and small tables.
void append_table_rows(io::Table& into, const io::Table& from);

// Sorts t's rows [first, last) (all rows by default), in place, by the given columns in turn
// (each an int column, or a string column compared as bytes or, with `natural`, by natural_less:
// "step2" before "step10"; with `first_seen`, an encoded column by first appearance: its codes,
// as DictionaryEncoder gives them), then by their current position (a stable sort).
struct SortKey {
  const char* column;
  bool natural = false;
  bool first_seen = false;
};
void sort_table_rows(io::Table& t, const std::vector<SortKey>& keys, size_t first = 0,
                     size_t last = static_cast<size_t>(-1));

}  // namespace cs::analysis
