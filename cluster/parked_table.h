#pragma once
// A table held on disk while later work runs, read back when it is wanted. The report's tables
// (step_trace, free_breakdown, host_rank_ops, ...) are built in stage 4 beside the communication
// step's batches but read only when report.html is drawn at the end; parked in the root's spill
// file they are not part of the root's peak (docs/root_memory.md).
//
//   ParkedTable p(std::move(table), spill);  // packed into `spill`; the table freed
//   const io::Table& t = p.get();           // read back once, held from then on

#include <memory>
#include <vector>

#include "io/table.h"
#include "runtime/spill_file.h"

namespace cs::cluster {

class ParkedTable {
 public:
  ParkedTable() = default;
  // Parks `t` in `spill`; holds it in memory instead when `spill` is null or cannot be written
  // (parking only saves memory).
  ParkedTable(io::Table t, const std::shared_ptr<runtime::SpillFile>& spill);
  // The same for a shared table: packed from where it is (no copy), the reference let go once
  // it is on disk. Packed and written a column at a time: the bytes held besides the table are
  // one column's.
  ParkedTable(std::shared_ptr<const io::Table> t, const std::shared_ptr<runtime::SpillFile>& spill);

  // True once a table was given (empty or not).
  bool has_table() const { return held_ != nullptr || spill_ != nullptr; }
  // True while the table is on disk (given, not read back yet).
  bool parked() const { return !held_ && spill_ != nullptr; }
  // The table: read back from the spill file on the first call, held from then on; an empty
  // table when none was given. Not thread-safe. Throws std::runtime_error when the file cannot
  // be read or its bytes are damaged.
  const io::Table& get() const;

 private:
  mutable std::shared_ptr<const io::Table> held_;
  mutable std::shared_ptr<runtime::SpillFile> spill_;  // set while parked
  mutable std::vector<runtime::SpillFile::Block> blocks_;  // the head, then one per column
};

}  // namespace cs::cluster
