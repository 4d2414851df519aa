#pragma once
// communication_matrix (analysis/comm_tables.h) built a batch of group tuples at a time, from each
// batch's merged links (msprof_analyze/documents/cluster_matrix.h: merge_cluster_matrix), so the
// merged links are never held whole: a batch's rows are appended as it comes, string cells
// dictionary-encoded, and the rows sorted once at the end (step, group, op, src_rank, dst_rank,
// then link order), which gives communication_matrix_table()'s table cell for cell.
//
//   CommMatrixTable table;
//   merge_cluster_matrix(path, ranks, groups, diag, [&](GlobalLinks&& b) { table.add(b); });
//   io::Table t = table.take();
//
// communication_matrix_rows() is one batch's rows alone, unsorted: the chunk a writer that
// appends tables in chunks would take.

#include <memory>

#include "io/table.h"
#include "msprof_analyze/documents/cluster_matrix.h"

namespace cs::analysis {

class CommMatrixTable;
// One batch's rows in link order, columns as communication_matrix's (string columns encoded with
// dictionaries of their own), unsorted.
io::Table communication_matrix_rows(const documents::GlobalLinks& batch);

class CommMatrixTable {
 public:
  CommMatrixTable();
  ~CommMatrixTable();
  CommMatrixTable(const CommMatrixTable&) = delete;
  CommMatrixTable& operator=(const CommMatrixTable&) = delete;

  // Appends the rows of one batch's links (batches in file order).
  void add(const documents::GlobalLinks& batch);
  // Rows appended so far.
  size_t rows() const;
  // The table, sorted into table order; call once, after the last add().
  io::Table take();

 private:
  friend io::Table communication_matrix_rows(const documents::GlobalLinks& batch);
  struct Columns;
  std::unique_ptr<Columns> c_;
};

}  // namespace cs::analysis
