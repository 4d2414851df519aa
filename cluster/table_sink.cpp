#include "cluster/table_sink.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <utility>

#include "io/csv/csv_writer.h"
#include "io/hdf5/hdf5_chunks.h"
#include "runtime/interrupt.h"

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

namespace {

double thread_cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

void TableSink::write_h5(const io::Table& t) {
  const auto start = std::chrono::steady_clock::now();
  const double cpu = thread_cpu_now();
  write_h5_timed(t);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::lock_guard<std::mutex> lock(mu_);
  h5_wall_ += wall;
  h5_cpu_ += thread_cpu_now() - cpu;  // compression on other threads is not counted
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

void TableSink::h5_loop() {
  for (;;) {
    std::shared_ptr<const io::Table> t;
    {
      std::unique_lock<std::mutex> lock(mu_);
      h5_cv_.wait(lock, [&] { return closing_ || !h5_queue_.empty(); });
      if (h5_queue_.empty()) return;  // closing, and nothing left
      t = std::move(h5_queue_.front());
      h5_queue_.pop_front();
      ++h5_writing_;
    }
    write_h5(*t);
    t.reset();  // the table is freed here unless it is kept
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
  if (async_ && h5) {
    std::lock_guard<std::mutex> lock(mu_);
    h5_queue_.push_back(t);
    h5_cv_.notify_one();
  }
  io::Diagnostics d;
  const std::string base = out_dir_ + "/" + t->name;
  if (!is_op_table(t->name)) {
    if (csv_) io::write_table_csv(*t, base + ".csv", d);
  } else if (op_tables_ == OpTables::kCsv) {
    io::write_table_csv(*t, base + ".csv", d);
  } else if (op_tables_ == OpTables::kCsvGz) {
    io::write_table_csv_gz(*t, base + ".csv.gz", d);
  }
  if (!async_ && h5) write_h5(*t);
  std::lock_guard<std::mutex> lock(mu_);
  ++count_;
  if (is_op_table(t->name)) op_rows_[t->name] += t->rows();
  if (!d.empty()) diag_[t->name].append(d);
  if (keep_.count(t->name)) kept_.insert_or_assign(t->name, std::move(t));
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
  return it == kept_.end() ? nullptr : it->second.get();
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
