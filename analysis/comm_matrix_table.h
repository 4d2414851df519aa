#pragma once
// communication_matrix (analysis/comm_tables.h) built a batch of group tuples at a time, from each
// batch's merged links (msprof_analyze/documents/cluster_matrix.h: merge_cluster_matrix), and
// handed on batch by batch (cluster/table_sink.h streams each batch's rows to the CSV and HDF5
// files), so neither the merged links nor the table are ever held whole.
//
// Row order: group tuple first, in the order of cluster_communication_matrix.json's top level
// (the tuples' first appearance over the ranks in rank order: the same at any process count, batch
// size or thread count); within a tuple by step (natural: "step2" before "step10"), group, op
// (natural), src_rank, dst_rank, then link order. (Before issue 38 the table was sorted step first
// over every tuple, which needs every row at once: communication_matrix_table() still gives that
// order, for tests.)
//
//   const MatrixBatches batches(ranks, groups);
//   const CommMatrixShape shape = comm_matrix_shape(batches.widths());
//   auto stream = sink.open_stream(shape.schema, shape.strings);
//   merge_cluster_matrix(..., [&](GlobalLinks&& b) { stream->append(communication_matrix_rows(b));
//   });

#include <vector>

#include "io/string_column_size.h"
#include "io/table.h"
#include "msprof_analyze/documents/cluster_matrix.h"
#include "msprof_analyze/documents/matrix_batches.h"

namespace cs::analysis {

// The table's columns (no rows) and the sizes of its string columns in column order (step, group,
// op, transport, op_name: the longest value each can hold and their mean bytes, from the matrix
// batches' first pass): what the streamed table needs before its first row.
struct CommMatrixShape {
  io::Table schema;
  std::vector<io::StringColumnSize> strings;
};
CommMatrixShape comm_matrix_shape(const documents::MatrixStringWidths& widths);

// One batch's rows in table order (above), columns as communication_matrix's (string columns
// encoded with dictionaries of their own). The batch's links come one chunk per group tuple, in
// document order (as merge_cluster_matrix hands them).
io::Table communication_matrix_rows(const documents::GlobalLinks& batch);
// The same rows built on up to `threads` threads: one table per run of the batch's tuples (runs
// of about equal links), in order; together they are communication_matrix_rows' rows.
std::vector<io::Table> communication_matrix_row_parts(const documents::GlobalLinks& batch,
                                                      int threads);

}  // namespace cs::analysis
