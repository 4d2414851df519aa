#pragma once
// communication_ops and communication_bandwidth (analysis/comm_tables.h) built a batch of group
// tuples at a time (msprof_analyze/documents/comm_batches.h): each batch's rows are appended as
// they come, string cells dictionary-encoded, and the rows sorted once at the end (step, group,
// op, rank, ...: comm_tables.h), so the tables never need every rank's ops at once. Batches given
// in document order make the same tables as one index of every op.
//
//   CommOpTables tables;
//   for (size_t b = 0; b < batches.size(); ++b) tables.add(batches.load(b).index);
//   io::Table ops = tables.take_ops(), bandwidth = tables.take_bandwidth();

#include <memory>

#include "io/table.h"
#include "msprof_analyze/documents/cluster_communication.h"

namespace cs::analysis {

class CommOpTables {
 public:
  CommOpTables();
  ~CommOpTables();
  CommOpTables(const CommOpTables&) = delete;
  CommOpTables& operator=(const CommOpTables&) = delete;

  // Appends the rows of one batch's group tuples (in document order).
  void add(const documents::CommIndex& batch);
  // The tables, sorted into table order; call each once, after the last add().
  io::Table take_ops();
  io::Table take_bandwidth();

 private:
  struct Columns;
  std::unique_ptr<Columns> c_;
};

// Sorts t's rows, in place, by the given columns in turn (each an int column, or a string column
// compared as bytes or, with `natural`, by natural_less: "step2" before "step10"), then by their
// current position (a stable sort).
struct SortKey {
  const char* column;
  bool natural = false;
};
void sort_table_rows(io::Table& t, const std::vector<SortKey>& keys);

}  // namespace cs::analysis
