#include "cluster/table_sink.h"

#include <algorithm>
#include <utility>

#include "io/csv/csv_writer.h"
#include "runtime/interrupt.h"
#include "runtime/task_runner.h"

namespace cs::cluster {

TableSink::TableSink(std::string out_dir, bool csv, io::Hdf5File* h5, std::set<std::string> keep,
                     int threads)
    : out_dir_(std::move(out_dir)),
      csv_(csv),
      h5_(h5),
      keep_(std::move(keep)),
      threads_(std::max(1, threads)),
      overlap_(threads > 1 && csv && h5) {}

void TableSink::put(io::Table t) {
  runtime::interrupt_checkpoint("table");  // an interrupt stops before the next table
  io::Diagnostics d, h5_d;
  auto write_h5 = [&] {
    // Compressed outside the lock (several tables at once, a table's chunks on the sink's
    // threads), stored under it.
    const io::Hdf5TableOptions opt;
    const io::Hdf5Chunks chunks =
        io::filter_table_chunks(t, opt.chunk_rows, opt.shuffle, opt.deflate_level, threads_);
    std::lock_guard<std::mutex> lock(h5_mu_);
    h5_->write_table(t, h5_d, opt, &chunks);
  };
  {
    runtime::TaskGroup h5_task;  // joined on every way out of this scope
    if (overlap_) h5_task.run(write_h5);
    if (csv_) io::write_table_csv(t, out_dir_ + "/" + t.name + ".csv", d);
    h5_task.wait();
    if (!overlap_ && h5_) write_h5();
  }
  d.append(h5_d);
  std::lock_guard<std::mutex> lock(mu_);
  ++count_;
  if (!d.empty()) diag_[t.name].append(d);
  if (keep_.count(t.name)) kept_.insert_or_assign(t.name, std::move(t));
}

const io::Table* TableSink::kept(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = kept_.find(name);
  return it == kept_.end() ? nullptr : &it->second;
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
