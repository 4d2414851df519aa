#include "msprof_analyze/recipes/communication_time_sum/time_sum_runs.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <type_traits>

#include "frame/frame_ops.h"

namespace cs::recipes::communication_time_sum {

namespace {

static_assert(std::is_trivially_copyable_v<frame::Cell>);
constexpr size_t kChunkRows = 1024;

}  // namespace

KeySortedRuns::KeySortedRuns(size_t columns, std::vector<size_t> keys, size_t run_rows,
                             std::shared_ptr<runtime::SpillFile> file)
    : columns_(columns),
      keys_(std::move(keys)),
      run_rows_(std::max<size_t>(run_rows, 1)),
      file_(std::move(file)),
      pending_(columns) {}

void KeySortedRuns::add(const frame::Frame& rows, size_t from) {
  const size_t n = rows.rows();
  for (size_t at = from; at < n;) {
    const size_t take = std::min(n - at, run_rows_ - pending_.front().size());
    for (size_t c = 0; c < columns_; ++c) {
      const auto& in = rows.columns[c].cells;
      pending_[c].insert(pending_[c].end(), in.begin() + static_cast<std::ptrdiff_t>(at),
                         in.begin() + static_cast<std::ptrdiff_t>(at + take));
    }
    at += take;
    rows_ += take;
    if (pending_.front().size() == run_rows_) store_run();
  }
}

void KeySortedRuns::finish() {
  store_run();
  for (auto& c : pending_) std::vector<frame::Cell>().swap(c);
}

// The pending rows stably sorted by the keys, stored as one run of chunks.
void KeySortedRuns::store_run() {
  if (columns_ == 0 || pending_.front().empty()) return;
  const size_t n = pending_.front().size();
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), uint32_t{0});
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    for (size_t k : keys_) {
      const int x = frame::compare_cells(pending_[k][a], pending_[k][b]);
      if (x != 0) return x < 0;
    }
    return false;
  });
  runs_.emplace_back();
  for (size_t from = 0; from < n; from += kChunkRows) {
    const size_t rows = std::min(kChunkRows, n - from);
    Chunk chunk;
    chunk.rows = static_cast<uint32_t>(rows);
    chunk.bytes.resize(rows * columns_ * sizeof(frame::Cell));
    char* p = chunk.bytes.data();
    for (size_t c = 0; c < columns_; ++c)
      for (size_t r = from; r < from + rows; ++r, p += sizeof(frame::Cell))
        std::memcpy(p, static_cast<const void*>(&pending_[c][order[r]]), sizeof(frame::Cell));
    if (file_ && problem_.empty()) {
      try {
        chunk.block = file_->append(chunk.bytes.data(), chunk.bytes.size());
        std::vector<char>().swap(chunk.bytes);
      } catch (const std::exception& e) {
        problem_ = e.what();  // this chunk and the rest stay held (the earlier ones are read back)
      }
    }
    runs_.back().push_back(std::move(chunk));
  }
  for (auto& c : pending_) c.clear();
}

struct KeySortedRuns::Merger::Cursor {
  size_t run = 0;
  size_t chunk = 0;   // the chunk loaded
  size_t at = 0;      // its next row
  uint32_t rows = 0;  // its rows
  std::vector<char> bytes;
  frame::Cell cell(size_t c, size_t r) const {
    frame::Cell v;
    std::memcpy(static_cast<void*>(&v), bytes.data() + (c * rows + r) * sizeof(frame::Cell),
                sizeof v);
    return v;
  }
};

KeySortedRuns::Merger::Merger(const KeySortedRuns& runs) : runs_(runs) {
  for (size_t r = 0; r < runs.runs_.size(); ++r) {
    if (runs.runs_[r].empty()) continue;
    cursors_.push_back({});
    cursors_.back().run = r;
    load(cursors_.back());
    heap_.push_back(cursors_.size() - 1);
  }
  std::make_heap(heap_.begin(), heap_.end(), [this](size_t a, size_t b) { return later(a, b); });
}

KeySortedRuns::Merger::~Merger() = default;

void KeySortedRuns::Merger::load(Cursor& c) {
  const Chunk& chunk = runs_.runs_[c.run][c.chunk];
  if (chunk.bytes.empty() && chunk.rows > 0)
    runs_.file_->read(chunk.block, c.bytes);
  else
    c.bytes = chunk.bytes;
  if (c.bytes.size() != chunk.rows * runs_.columns_ * sizeof(frame::Cell))
    throw std::runtime_error("a sorted run of totals was read back short");
  c.rows = chunk.rows;
  c.at = 0;
}

// True when cursor a's next row comes after cursor b's (on equal keys: the later run).
bool KeySortedRuns::Merger::later(size_t a, size_t b) const {
  const Cursor& x = cursors_[a];
  const Cursor& y = cursors_[b];
  for (size_t k : runs_.keys_) {
    const int d = frame::compare_cells(x.cell(k, x.at), y.cell(k, y.at));
    if (d != 0) return d > 0;
  }
  return x.run > y.run;
}

bool KeySortedRuns::Merger::next(std::vector<std::vector<frame::Cell>>& out, size_t max_rows) {
  const size_t columns = runs_.columns_;
  out.assign(columns, {});
  for (auto& c : out) c.reserve(std::min<uint64_t>(max_rows, runs_.rows_));
  auto cmp = [this](size_t a, size_t b) { return later(a, b); };
  size_t n = 0;
  while (n < max_rows && !heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), cmp);
    Cursor& c = cursors_[heap_.back()];
    for (size_t col = 0; col < columns; ++col) out[col].push_back(c.cell(col, c.at));
    ++n;
    if (++c.at == c.rows) {
      if (++c.chunk == runs_.runs_[c.run].size()) {
        std::vector<char>().swap(c.bytes);
        heap_.pop_back();
        continue;
      }
      load(c);
    }
    std::push_heap(heap_.begin(), heap_.end(), cmp);
  }
  return n > 0;
}

}  // namespace cs::recipes::communication_time_sum
