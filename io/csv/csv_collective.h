#pragma once
// A table's CSV file written by every process at once, each its own rows at their place: the
// bytes are write_table_csv's of the whole table (every process's rows in key order), whatever
// the number of processes, and no process ever holds another's rows. The per-rank tables of a
// cluster run (cluster/rank_tables.h) go this way, so their CSV files, which grow with the ranks,
// are never gathered on the root.
//
//   // every process, at the same point:
//   io::Table mine = rows_of_my_ranks();            // my ranks' rows, ranks ascending
//   std::vector<io::RowBlock> blocks = {{3, 2}, {7, 1}};   // rank 3: 2 rows, rank 7: 1 row
//   bool ok = write_table_csv_collective(mine, blocks, out_dir + "/t.csv", coll, diag);
//
// How: each process formats its blocks' rows; the blocks' keys and byte sizes are gathered on
// every process (io::Collective::all_gather), which gives each block its offset (the header's
// bytes, then the sizes of the blocks with smaller keys); the root creates "<path>.tmp" at its
// full size and writes the header; after an agreement every process writes its blocks into it
// with pwrite at their offsets; after a second agreement the root renames it to `path` (the
// output ledger records it on the root). This needs a file system every process can write (one
// node, or a shared one), as MPI-IO does.
//
// Failures: blocks that do not add up or a key used twice fail every process together (the
// gathered sizes are the same everywhere); a process that cannot open or write the file says so
// in its own `diag` (file, what, the system's reason), and every process returns false: the root
// removes the .tmp, nothing appears under `path`.

#include <string>
#include <vector>

#include "io/collective.h"
#include "io/diagnostics.h"
#include "io/table.h"

namespace cs::io {

// Collective. True on every process when `path` is complete; false on every process otherwise
// (the process that saw the problem has it in `diag`).
bool write_table_csv_collective(const Table& local, const std::vector<RowBlock>& blocks,
                                const std::string& path, const Collective& coll, Diagnostics& diag);

}  // namespace cs::io
