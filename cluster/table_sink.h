#pragma once
// Writes the result tables of `clusterscope cluster` as the analyses finish them, so the big ones
// never wait for one another in memory: a table's CSV file is written on the thread that built
// it; its HDF5 datasets by one writer thread in the order the tables came (the HDF5 library is
// not thread-safe), compressed there (io/hdf5/hdf5_chunks.h), so no analysis waits for HDF5;
// a table is freed once both are written, unless it was asked to be kept (the report draws a few
// small ones at the end).
//
// A big table can also come as a stream of chunks (open_stream: the per-op tables, one batch of
// group tuples at a time), each chunk appended to its CSV file and HDF5 datasets and freed, so the
// table is never held whole.
//
//   TableSink sink(out_dir, /*csv=*/true, &h5, {"rank_manifest", "slow_ranks"}, threads);
//   sink.put(step_trace_table(ranks));                 // from any thread
//   auto s = sink.open_stream(schema, string_sizes);    // a table given a chunk at a time
//   s->append(std::move(chunk1)); s->append(std::move(chunk2)); s->close();
//   sink.finish();                                     // every table written
//   const io::Table* m = sink.kept("rank_manifest");

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "cluster/cluster_mode.h"
#include "cluster/parked_table.h"
#include "io/csv/csv_writer.h"
#include "io/diagnostics.h"
#include "io/hdf5/hdf5_append.h"
#include "io/hdf5/hdf5_writer.h"
#include "io/string_column_size.h"
#include "io/table.h"
#include "runtime/spill_file.h"

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
  // Tables whose CSV file is already written (by every process: cluster/rank_tables.h): put()
  // writes no CSV file for them.
  void set_csv_elsewhere(std::set<std::string> names) { csv_elsewhere_ = std::move(names); }

  // Kept tables are parked in `spill` once put (cluster/parked_table.h) and read back by kept():
  // the report's tables are then not held while the later analyses run. Null: kept in memory.
  // Call before the first put().
  void park_kept_in(std::shared_ptr<runtime::SpillFile> spill) { park_ = std::move(spill); }

  // Writes `t` (its HDF5 datasets perhaps later, on the writer thread) and keeps it if its name
  // is in `keep`. Thread-safe.
  void put(io::Table t);

  // A table written as it is produced (see open_stream). One thread appends to it.
  class Stream {
   public:
    // Without close() (an exception on its way): the CSV file abandoned (its .tmp removed, never
    // published), the HDF5 table left unfinished.
    ~Stream();
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    // Appends `rows` (the schema's columns) to the CSV file on this thread and hands them to the
    // HDF5 writer; waits while the writer is kMaxQueued chunks behind (the memory held is a few
    // chunks, whatever the table's size).
    void append(io::Table rows);
    // False when no file takes the rows (no CSV or text file, no HDF5 datasets: --format json):
    // the caller may skip building them and give only their count (count_rows).
    bool writes() const { return csv_.has_value() || h5_ != nullptr; }
    // Counts `n` rows of the table for the closing summary (op_table_rows): append counts what
    // it is given; a caller that builds no rows because no file takes them calls it alone.
    void count_rows(size_t n);
    // Ends the table: its CSV file published, its HDF5 datasets' last chunks stored (perhaps
    // later, on the writer thread; finish() waits for them). Once.
    void close();

   private:
    friend class TableSink;
    struct H5;
    Stream() = default;
    TableSink* sink_ = nullptr;
    std::string name_;
    bool closed_ = false;
    std::optional<io::CsvTableWriter> csv_;
    std::shared_ptr<H5> h5_;  // null: no HDF5 datasets
  };
  // Chunks a stream may have waiting for the writer thread.
  static constexpr size_t kMaxQueued = 2;
  // Rows per HDF5 chunk of a streamed table by default (the whole tables have 64 Ki): the
  // appender holds one chunk per column, at most 128 KiB for a number column.
  static constexpr size_t kStreamChunkRows = 16 * 1024;
  // Rows per HDF5 chunk of the tables streamed from now on (tests force tiny chunks). Call
  // before open_stream().
  void set_stream_chunk_rows(size_t rows) { stream_chunk_rows_ = rows > 0 ? rows : 1; }

  // Opens table `schema.name` (its columns; rows ignored) as a stream of chunks: its CSV file
  // (where put() would write one, is_op_table and set_op_tables included) and its HDF5 datasets
  // (io/hdf5/hdf5_append.h) are appended chunk by chunk in the order given. `strings`: the
  // longest value and mean bytes of each string column, in column order (the HDF5 datasets'
  // string types must be known before the first row; a longer value fails the HDF5 file with a
  // message). Thread-safe; the stream is never kept (kept() gives null).
  std::unique_ptr<Stream> open_stream(const io::Table& schema,
                                      std::vector<io::StringColumnSize> strings);

  // Waits until every table put so far is written to the HDF5 file too. Call before using the
  // HDF5 file, kept() or diagnostics().
  void finish();
  // Waits until every table put so far is written (and freed unless kept), the writer thread
  // staying on for more: how the caller keeps a big table from being held beside the next ones.
  void wait_written();

  // A kept table, null when it was not put, or when it was parked and cannot be read back (said
  // once in diagnostics()). Call after finish().
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
  // One piece of HDF5 work: a whole table, or a stream's opening, chunk or end.
  struct Job {
    enum Kind { kTable, kOpen, kAppend, kClose, kAbandon } kind = kTable;
    std::shared_ptr<const io::Table> table;
    std::shared_ptr<Stream::H5> stream;
  };
  void run_h5(const Job& job);  // timed, under h5_mu_
  void write_h5_timed(const io::Table& t);
  void stream_h5(const Job& job);
  void submit(Job job);  // to the writer thread, or run now without one
  void h5_loop();

  std::string out_dir_;
  bool csv_;
  OpTables op_tables_ = OpTables::kCsv;
  size_t stream_chunk_rows_ = kStreamChunkRows;
  io::Hdf5File* h5_;
  std::set<std::string> keep_;
  std::set<std::string> h5_elsewhere_;
  std::set<std::string> csv_elsewhere_;
  int threads_;
  bool async_;                                // HDF5 on the writer thread
  std::mutex h5_mu_;                          // serialises HDF5 calls
  mutable std::mutex mu_;                     // guards everything below
  std::shared_ptr<runtime::SpillFile> park_;  // where kept tables wait (null: in memory)
  mutable std::map<std::string, ParkedTable> kept_;
  mutable std::map<std::string, io::Diagnostics> diag_;
  size_t count_ = 0;
  double h5_wall_ = 0, h5_cpu_ = 0;
  std::map<std::string, size_t> op_rows_;
  std::deque<Job> h5_queue_;  // waiting for the writer thread
  bool closing_ = false;
  size_t h5_writing_ = 0;  // tables taken from the queue, not yet written
  std::condition_variable h5_cv_;
  std::condition_variable h5_written_cv_;  // the queue emptied and nothing is being written
  std::condition_variable room_cv_;        // a stream's chunk was written
  std::thread h5_thread_;
};

}  // namespace cs::cluster
