#pragma once
// The tables of cluster_analysis.h5 whose rows are each rank's own, built on the process that
// parsed the rank (as it is parsed, before it is packed for the root) and written into the file
// by every process at once (io/hdf5/hdf5_collective_table.h), each rank's rows at their place in
// rank order: those rows never travel to the root for the HDF5 file (docs/parallel_hdf5.md). Their
// CSV files are written the same way, every process its rows at their offsets in one file.
//
//   rank_manifest      one row per parsed rank (the root adds the skipped directories' rows)
//   memory_steps, memory_components, memory_curves    (diagnosis modes, ranks with memory data)
//   free_breakdown     (diagnosis modes, ranks with a host side)
//
// The same functions build them as on the root (load/manifest.h, memory/cluster_memory.h,
// host/host_tables.h), called with one rank, so the rows are those the root builds for the CSV
// files and the report, which still build them from the gathered ranks (they are small).
//
//   RankTables tables(/*diagnosis=*/true);
//   load.on_parsed = [&](const load::RankData& d) { tables.add(d); };   // every process
//   ... load_cluster(...) ...
//   std::set<std::string> csv = tables.write_csv(dir, coll, lc.skipped, diag);   // every process
//   std::set<std::string> done = tables.write(h5, lc.skipped, diag);   // every process
//   sink.set_hdf5_elsewhere(done);                                       // the root
//   sink.set_csv_elsewhere(csv);                                         // the root

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "io/collective.h"
#include "io/diagnostics.h"
#include "io/hdf5/hdf5_collective_table.h"
#include "io/hdf5/hdf5_writer.h"
#include "io/table.h"
#include "load/rank_data.h"

namespace cs::cluster {

class RankTables {
 public:
  // diagnosis: the mode writes the memory and host tables (-m all, diagnosis).
  explicit RankTables(bool diagnosis) : diagnosis_(diagnosis) {}

  // The rows of one parsed rank. Thread-safe (the loader's parse threads call it).
  void add(const load::RankData& rank);

  // Collective (every process, the file opened collectively or serially): writes each table
  // with every process's rows in rank order; `skipped`: the directories found but not parsed
  // (the root's; the manifest's last rows). A memory or host table is written when some rank of
  // some process has such data, as the root decides. Returns the names of the tables written,
  // the same on every process; a table that needs variable-length strings is not among them
  // (the root's serial writer writes it). Errors go to `diag` (the file is failed then).
  std::set<std::string> write(io::Hdf5File& h5, const std::vector<load::RankEntry>& skipped,
                              io::Diagnostics& diag);

  // Collective (every process; before write(), which hands the rows to the HDF5 file): each
  // table's CSV file "<dir>/<name>.csv", every process its ranks' rows at their place in rank
  // order (io/csv/csv_collective.h), byte for byte the file the root would write from every
  // rank. The same tables as write(). Returns, on the root, the names of the files written; a
  // file that failed is not among them (the process that saw why has it in `diag`), nor under
  // its name.
  std::set<std::string> write_csv(const std::string& dir, const io::Collective& coll,
                                  const std::vector<load::RankEntry>& skipped,
                                  io::Diagnostics& diag);

 private:
  // One table's rows of this process's ranks, in the order the ranks were parsed, and where each
  // rank's rows are (blocks keyed by rank: the writer puts them in rank order).
  struct Rows {
    io::Table rows;
    std::vector<io::Hdf5RowBlock> blocks;
  };
  void append(const std::string& name, const io::Table& one, int rank);
  // The tables to write: the manifest, and each other table some process has rows of
  // (collective). Called with mu_ held.
  std::vector<io::Table> tables_to_write(const io::Collective& coll) const;
  // This process's rows of `schema`'s table (taken out of the table, or copied), the skipped
  // directories' manifest rows after them. Called with mu_ held.
  Rows rows_of(const io::Table& schema, const std::vector<load::RankEntry>& skipped, bool take);

  bool diagnosis_;
  std::mutex mu_;
  std::map<std::string, Rows> tables_;  // by table name
};

}  // namespace cs::cluster
