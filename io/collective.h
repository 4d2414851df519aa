#pragma once
// What io/ needs from MPI to write one output file from every process at once, given without
// MPI: io/ neither links nor calls MPI. The caller that holds the MPI session (cluster/, through
// mpi/) implements it; a serial run uses io::solo_collective().
//
//   class MyCollective : public io::Collective { ... };   // over an MPI communicator
//   write_table_csv_collective(rows, blocks, path, coll, diag);   // io/csv/csv_collective.h
//
// Every call is collective: every process makes it, in the same order.

#include <cstdint>
#include <vector>

namespace cs::io {

// `rows` consecutive rows of one process's part of a table, placed at `key`'s position among
// every process's blocks (for the per-rank tables the key is the rank). Keys are unique across
// processes.
struct RowBlock {
  uint64_t key = 0;
  uint64_t rows = 0;
};

class Collective {
 public:
  virtual ~Collective() = default;

  // This process's index (0 = the root, which owns the output: its name, its removal on
  // failure, its publication) and the number of processes.
  virtual int process() const = 0;
  virtual int processes() const = 0;

  // Collective: every process's `mine`, in process order, on every process.
  virtual std::vector<std::vector<uint64_t>> all_gather(
      const std::vector<uint64_t>& mine) const = 0;

  // Collective: the element-wise maximum of `values` over processes, on every process (every
  // process passes as many values).
  virtual std::vector<uint64_t> all_max(const std::vector<uint64_t>& values) const = 0;
};

// One process alone: its agreements are its own values.
const Collective& solo_collective();

}  // namespace cs::io
