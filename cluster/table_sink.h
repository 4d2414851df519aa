#pragma once
// Writes the result tables of `clusterscope cluster` as the analyses finish them, so the big ones
// never wait for one another in memory: a table's CSV file is written on the thread that built
// it, its HDF5 dataset under a lock (the HDF5 library is not thread-safe), and then the table is
// freed unless it was asked to be kept (the report draws a few small ones at the end).
//
//   TableSink sink(out_dir, /*csv=*/true, &h5, {"rank_manifest", "slow_ranks"});
//   sink.put(communication_ops_table(ranks, groups));  // from any thread; written, then freed
//   const io::Table* m = sink.kept("rank_manifest");

#include <map>
#include <mutex>
#include <set>
#include <string>

#include "io/diagnostics.h"
#include "io/hdf5/hdf5_writer.h"
#include "io/table.h"

namespace cs::cluster {

class TableSink {
 public:
  // csv: write "<out_dir>/<name>.csv"; h5: the open HDF5 file, or null for none; keep: the names
  // of the tables to hold on to after writing; threads > 1: a table's CSV file and its HDF5
  // dataset are written at once, on two threads.
  TableSink(std::string out_dir, bool csv, io::Hdf5File* h5, std::set<std::string> keep,
            int threads = 1);

  // Writes `t` and keeps it if its name is in `keep`. Thread-safe.
  void put(io::Table t);

  // A kept table, null when it was not put. Call once every put has returned.
  const io::Table* kept(const std::string& name) const;

  // Tables put so far.
  size_t count() const;

  // Write errors, in table-name order (whatever order the tables came in).
  io::Diagnostics diagnostics() const;

 private:
  std::string out_dir_;
  bool csv_;
  io::Hdf5File* h5_;
  std::set<std::string> keep_;
  int threads_;
  bool overlap_;
  mutable std::mutex mu_;  // guards everything below
  std::mutex h5_mu_;       // serialises HDF5 calls
  std::map<std::string, io::Table> kept_;
  std::map<std::string, io::Diagnostics> diag_;
  size_t count_ = 0;
};

}  // namespace cs::cluster
