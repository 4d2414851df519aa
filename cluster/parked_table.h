#pragma once
// A table held on disk while later work runs, read back when it is wanted. The report's tables
// (step_trace, free_breakdown, host_rank_ops, ...) are built in stage 4 beside the communication
// step's batches but read only when report.html is drawn at the end; parked in the root's spill
// file they are not part of the root's peak (docs/root_memory.md). A table may also be given in
// chunks of rows as it is built, so that it is never whole in memory before the end.
//
//   ParkedTable p(std::move(table), spill);  // packed into `spill`; the table freed
//   ParkedTable q(spill); q.append(std::move(rows1)); q.append(std::move(rows2));
//   const io::Table& t = p.get();           // read back once, held from then on

#include <memory>
#include <vector>

#include "io/table.h"
#include "runtime/spill_file.h"

namespace cs::cluster {

class ParkedTable {
 public:
  ParkedTable() = default;
  // An empty table to append() chunks to, parked in `spill` (held in memory when null).
  explicit ParkedTable(std::shared_ptr<runtime::SpillFile> spill) : spill_(std::move(spill)) {}
  // Parks `t` in `spill`; holds it in memory instead when `spill` is null or cannot be written
  // (parking only saves memory).
  ParkedTable(io::Table t, const std::shared_ptr<runtime::SpillFile>& spill);
  // The same for a shared table: packed from where it is (no copy), the reference let go once
  // it is on disk. Packed and written a column at a time: the bytes held besides the table are
  // one column's.
  ParkedTable(std::shared_ptr<const io::Table> t, const std::shared_ptr<runtime::SpillFile>& spill);

  // Adds `rows` (the same columns as every chunk before) at the end. Not after get().
  void append(io::Table rows);
  // True once a table or chunk was given (empty or not).
  bool has_table() const { return held_ != nullptr || !chunks_.empty(); }
  // True while the table is on disk (given, not read back yet).
  bool parked() const { return !held_ && !chunks_.empty(); }
  // The table: read back from the spill file on the first call (its chunks joined,
  // io/table_concat.h), held from then on; an empty table when none was given. Not
  // thread-safe. Throws std::runtime_error when the file cannot be read or its bytes are
  // damaged.
  const io::Table& get() const;

 private:
  using Blocks = std::vector<runtime::SpillFile::Block>;  // a chunk: its head, then its columns
  // Writes `t` to the spill file as one more chunk; false when it cannot (nothing is kept then).
  bool park(const io::Table& t);
  mutable std::shared_ptr<const io::Table> held_;
  mutable std::shared_ptr<runtime::SpillFile> spill_;
  mutable std::vector<Blocks> chunks_;
  std::shared_ptr<io::Table> own_;  // appended to in memory (held_ points to it)
};

}  // namespace cs::cluster
