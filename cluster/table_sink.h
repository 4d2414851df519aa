#pragma once
// Writes the result tables of `clusterscope cluster` as the analyses finish them, so the big ones
// never wait for one another in memory: a table's CSV file is written on the thread that built
// it; its HDF5 datasets by one writer thread in the order the tables came (the HDF5 library is
// not thread-safe), compressed there (io/hdf5/hdf5_chunks.h), so no analysis waits for HDF5;
// a table is freed once both are written, unless it was asked to be kept (the report draws a few
// small ones at the end).
//
//   TableSink sink(out_dir, /*csv=*/true, &h5, {"rank_manifest", "slow_ranks"}, threads);
//   sink.put(communication_ops_table(ranks, groups));  // from any thread
//   sink.finish();                                      // every table written
//   const io::Table* m = sink.kept("rank_manifest");

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "cluster/cluster_mode.h"
#include "io/diagnostics.h"
#include "io/hdf5/hdf5_writer.h"
#include "io/table.h"

namespace cs::cluster {

class TableSink {
 public:
  // csv: write "<out_dir>/<name>.csv"; h5: the open HDF5 file, or null for none; keep: the names
  // of the tables to hold on to after writing; threads > 1: HDF5 is written by a thread of its
  // own (compressing on up to `threads` threads) while the callers go on.
  TableSink(std::string out_dir, bool csv, io::Hdf5File* h5, std::set<std::string> keep,
            int threads = 1);
  // Finishes (see finish()).
  ~TableSink();
  TableSink(const TableSink&) = delete;
  TableSink& operator=(const TableSink&) = delete;

  // Where the per-op tables (is_op_table) go as text, whatever `csv` says: kCsv (the default)
  // <name>.csv, kCsvGz <name>.csv.gz, kHdf5 no text file (only the HDF5 datasets). Call before
  // the first put().
  void set_op_tables(OpTables where) { op_tables_ = where; }

  // The tables already in the HDF5 file (written there collectively by every process,
  // cluster/rank_tables.h): put() writes only their CSV files. Call before the first put().
  void set_hdf5_elsewhere(std::set<std::string> names) { h5_elsewhere_ = std::move(names); }

  // Writes `t` (its HDF5 datasets perhaps later, on the writer thread) and keeps it if its name
  // is in `keep`. Thread-safe.
  void put(io::Table t);

  // Waits until every table put so far is written to the HDF5 file too. Call before using the
  // HDF5 file, kept() or diagnostics().
  void finish();
  // Waits until every table put so far is written (and freed unless kept), the writer thread
  // staying on for more: how the caller keeps a big table from being held beside the next ones.
  void wait_written();

  // A kept table, null when it was not put. Call after finish().
  const io::Table* kept(const std::string& name) const;

  // The per-op tables (is_op_table) put so far and their rows.
  std::map<std::string, size_t> op_table_rows() const;

  // Tables put so far.
  size_t count() const;

  // Wall and CPU seconds spent writing HDF5 datasets so far (compression included), for
  // --progress. Call after finish().
  double hdf5_wall_seconds() const;
  double hdf5_cpu_seconds() const;

  // Write errors, in table-name order (whatever order the tables came in). Call after finish().
  io::Diagnostics diagnostics() const;

 private:
  void write_h5(const io::Table& t);  // write_h5_timed, timed
  void write_h5_timed(const io::Table& t);
  void h5_loop();

  std::string out_dir_;
  bool csv_;
  OpTables op_tables_ = OpTables::kCsv;
  io::Hdf5File* h5_;
  std::set<std::string> keep_;
  std::set<std::string> h5_elsewhere_;
  int threads_;
  bool async_;             // HDF5 on the writer thread
  std::mutex h5_mu_;       // serialises HDF5 calls
  mutable std::mutex mu_;  // guards everything below
  std::map<std::string, std::shared_ptr<const io::Table>> kept_;
  std::map<std::string, io::Diagnostics> diag_;
  size_t count_ = 0;
  double h5_wall_ = 0, h5_cpu_ = 0;
  std::map<std::string, size_t> op_rows_;
  std::deque<std::shared_ptr<const io::Table>> h5_queue_;  // waiting for the writer thread
  bool closing_ = false;
  size_t h5_writing_ = 0;  // tables taken from the queue, not yet written
  std::condition_variable h5_cv_;
  std::condition_variable h5_written_cv_;  // the queue emptied and nothing is being written
  std::thread h5_thread_;
};

}  // namespace cs::cluster
