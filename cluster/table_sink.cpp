#include "cluster/table_sink.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <optional>
#include <utility>

#include "io/csv/csv_writer.h"
#include "io/hdf5/hdf5_chunks.h"
#include "runtime/interrupt.h"
#include "runtime/progress.h"

namespace cs::cluster {

TableSink::TableSink(std::string out_dir, bool csv, io::Hdf5File* h5, std::set<std::string> keep,
                     int threads)
    : out_dir_(std::move(out_dir)),
      csv_(csv),
      h5_(h5),
      keep_(std::move(keep)),
      threads_(std::max(1, threads)),
      async_(threads > 1 && h5) {
  if (async_) h5_thread_ = std::thread([this] { h5_loop(); });
}

TableSink::~TableSink() {
  finish();
}

// A stream's HDF5 side, shared by the stream and the jobs queued for it.
struct TableSink::Stream::H5 {
  io::Table schema;
  std::vector<io::StringColumnSize> strings;
  io::Hdf5TableOptions opt;
  std::optional<io::Hdf5TableAppender> app;  // after kOpen, unless it failed
  io::Diagnostics diag;
  size_t queued = 0;  // kAppend jobs not yet run (guarded by the sink's mu_)
};

void TableSink::run_h5(const Job& job) {
  const auto start = std::chrono::steady_clock::now();
  const double cpu = runtime::thread_cpu_seconds();
  if (job.kind == Job::kTable) {
    write_h5_timed(*job.table);
  } else {
    stream_h5(job);
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::lock_guard<std::mutex> lock(mu_);
  h5_wall_ += wall;
  h5_cpu_ += runtime::thread_cpu_seconds() - cpu;  // compression on other threads is not counted
  if (job.kind == Job::kAppend && async_) {
    --job.stream->queued;
    room_cv_.notify_all();
  }
}

void TableSink::write_h5_timed(const io::Table& t) {
  io::Diagnostics d;
  try {
    // Compressed first (a table's chunks on the sink's threads), then stored.
    const io::Hdf5TableOptions opt;
    const io::Hdf5Chunks chunks =
        io::filter_table_chunks(t, opt.chunk_rows, opt.shuffle, opt.deflate_level, threads_);
    std::lock_guard<std::mutex> lock(h5_mu_);  // several callers when there is no writer thread
    h5_->write_table(t, d, opt, &chunks);
  } catch (const std::exception& e) {
    d.error(h5_->path(), 0, "table " + t.name + ": " + e.what(),
            "the HDF5 file was not written; please report this bug");
  }
  if (d.empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  diag_[t.name].append(d);
}

void TableSink::stream_h5(const Job& job) {
  Stream::H5& s = *job.stream;
  std::lock_guard<std::mutex> lock(h5_mu_);
  try {
    switch (job.kind) {
      case Job::kOpen:
        s.app = io::Hdf5TableAppender::create(*h5_, s.schema, s.strings, s.diag, s.opt);
        break;
      case Job::kAppend:
        if (s.app) s.app->append(*job.table, s.diag);
        break;
      case Job::kClose:
        if (s.app) s.app->finish(s.diag);
        s.app.reset();
        break;
      case Job::kAbandon:
        s.app.reset();
        break;
      case Job::kTable:
        break;
    }
  } catch (const std::exception& e) {  // out of memory
    s.app.reset();
    s.diag.error(h5_->path(), 0, "table " + s.schema.name + ": " + e.what(),
                 "the table was left incomplete in the HDF5 file; please report this bug");
  }
  if ((job.kind != Job::kClose && job.kind != Job::kAbandon) || s.diag.empty()) return;
  std::lock_guard<std::mutex> diag_lock(mu_);
  diag_[s.schema.name].append(s.diag);
}

void TableSink::submit(Job job) {
  if (!async_ || !h5_thread_.joinable()) {  // no writer thread, or it ended (finish())
    run_h5(job);
    return;
  }
  std::unique_lock<std::mutex> lock(mu_);
  if (job.kind == Job::kAppend) {
    room_cv_.wait(lock, [&] { return job.stream->queued < kMaxQueued; });
    ++job.stream->queued;
  }
  h5_queue_.push_back(std::move(job));
  h5_cv_.notify_one();
}

void TableSink::h5_loop() {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      h5_cv_.wait(lock, [&] { return closing_ || !h5_queue_.empty(); });
      if (h5_queue_.empty()) return;  // closing, and nothing left
      job = std::move(h5_queue_.front());
      h5_queue_.pop_front();
      ++h5_writing_;
    }
    run_h5(job);
    job = Job{};  // a table or chunk is freed here unless it is kept
    std::lock_guard<std::mutex> lock(mu_);
    --h5_writing_;
    if (h5_queue_.empty() && h5_writing_ == 0) h5_written_cv_.notify_all();
  }
}

void TableSink::wait_written() {
  std::unique_lock<std::mutex> lock(mu_);
  h5_written_cv_.wait(lock, [&] { return h5_queue_.empty() && h5_writing_ == 0; });
}

void TableSink::put(io::Table table) {
  runtime::interrupt_checkpoint("table");  // an interrupt stops before the next table
  auto t = std::make_shared<const io::Table>(std::move(table));
  const bool h5 = h5_ && h5_elsewhere_.count(t->name) == 0;
  if (async_ && h5) submit({Job::kTable, t, nullptr});
  io::Diagnostics d;
  const std::string base = out_dir_ + "/" + t->name;
  if (!is_op_table(t->name)) {
    if (csv_ && csv_elsewhere_.count(t->name) == 0) io::write_table_csv(*t, base + ".csv", d);
  } else if (op_tables_ == OpTables::kCsv) {
    io::write_table_csv(*t, base + ".csv", d);
  } else if (op_tables_ == OpTables::kCsvGz) {
    io::write_table_csv_gz(*t, base + ".csv.gz", d);
  }
  if (!async_ && h5) run_h5({Job::kTable, t, nullptr});
  const std::string name = t->name;
  const size_t rows = t->rows();
  std::optional<ParkedTable> kept;
  if (keep_.count(name)) kept.emplace(std::move(t), park_);  // packed here, outside the lock
  std::lock_guard<std::mutex> lock(mu_);
  ++count_;
  if (is_op_table(name)) op_rows_[name] += rows;
  if (!d.empty()) diag_[name].append(d);
  if (kept) kept_.insert_or_assign(name, std::move(*kept));
}

std::unique_ptr<TableSink::Stream> TableSink::open_stream(
    const io::Table& schema, std::vector<io::StringColumnSize> strings) {
  runtime::interrupt_checkpoint("table");
  std::unique_ptr<Stream> s(new Stream());
  s->sink_ = this;
  s->name_ = schema.name;
  io::Table columns(schema.name);  // the schema without its rows
  for (const io::Column& c : schema.columns) {
    io::Column& e = columns.columns.emplace_back();
    e.name = c.name;
    e.unit = c.unit;
    e.type = c.type;
  }
  const std::string base = out_dir_ + "/" + schema.name;
  io::Diagnostics d;
  const bool op = is_op_table(schema.name);
  if ((op && op_tables_ != OpTables::kHdf5) || (!op && csv_)) {
    const bool gz = op && op_tables_ == OpTables::kCsvGz;
    s->csv_.emplace();
    if (!s->csv_->open(columns, base + (gz ? ".csv.gz" : ".csv"), gz, d)) s->csv_.reset();
  }
  if (h5_ && h5_elsewhere_.count(schema.name) == 0) {
    s->h5_ = std::make_shared<Stream::H5>();
    s->h5_->schema = std::move(columns);
    s->h5_->strings = std::move(strings);
    s->h5_->opt.chunk_rows = stream_chunk_rows_;
    s->h5_->opt.filter_threads = threads_;  // the chunks of one append filtered together
    submit({Job::kOpen, nullptr, s->h5_});
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++count_;
  if (op) op_rows_[schema.name] += 0;  // named in the summary even when empty
  if (!d.empty()) diag_[schema.name].append(d);
  return s;
}

TableSink::Stream::~Stream() {
  if (closed_) return;
  closed_ = true;
  csv_.reset();  // never committed: the .tmp is removed
  if (h5_) sink_->submit({Job::kAbandon, nullptr, h5_});
}

void TableSink::Stream::append(io::Table rows) {
  if (closed_) return;
  if (csv_) csv_->append(rows);  // a failed write is reported by commit()
  const size_t n = rows.rows();
  if (h5_) sink_->submit({Job::kAppend, std::make_shared<const io::Table>(std::move(rows)), h5_});
  count_rows(n);
}

void TableSink::Stream::count_rows(size_t n) {
  std::lock_guard<std::mutex> lock(sink_->mu_);
  if (is_op_table(name_)) sink_->op_rows_[name_] += n;
}

void TableSink::Stream::close() {
  if (closed_) return;
  closed_ = true;
  io::Diagnostics d;
  if (csv_) csv_->commit(d);
  csv_.reset();
  if (h5_) sink_->submit({Job::kClose, nullptr, h5_});
  if (d.empty()) return;
  std::lock_guard<std::mutex> lock(sink_->mu_);
  sink_->diag_[name_].append(d);
}

void TableSink::finish() {
  if (!h5_thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
  }
  h5_cv_.notify_one();
  h5_thread_.join();
}

const io::Table* TableSink::kept(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = kept_.find(name);
  if (it == kept_.end()) return nullptr;
  try {
    return &it->second.get();
  } catch (const std::exception& e) {
    kept_.erase(it);
    io::Diagnostic x;
    x.severity = io::Severity::kWarning;
    x.what = "the table " + name + " could not be read back from the spill file (" + e.what() + ")";
    x.hint =
        "report.html goes without it; its CSV and HDF5 copies were written; check the disk under "
        "$TMPDIR";
    diag_[name].add(std::move(x));
    return nullptr;
  }
}

std::map<std::string, size_t> TableSink::op_table_rows() const {
  std::lock_guard<std::mutex> lock(mu_);
  return op_rows_;
}

double TableSink::hdf5_wall_seconds() const {
  std::lock_guard<std::mutex> lock(mu_);
  return h5_wall_;
}

double TableSink::hdf5_cpu_seconds() const {
  std::lock_guard<std::mutex> lock(mu_);
  return h5_cpu_;
}

size_t TableSink::count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return count_;
}

io::Diagnostics TableSink::diagnostics() const {
  std::lock_guard<std::mutex> lock(mu_);
  io::Diagnostics all;
  for (const auto& [name, d] : diag_) all.append(d);
  return all;
}

}  // namespace cs::cluster
