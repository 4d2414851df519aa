#include "msprof_analyze/recipes/sorted_runs.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <type_traits>

#include "frame/frame_ops.h"

namespace cs::recipes {

namespace {

static_assert(std::is_trivially_copyable_v<frame::Cell>);
constexpr size_t kCell = sizeof(frame::Cell);

// Cell r of column c of a chunk of `rows` rows.
frame::Cell cell_of(const char* chunk, size_t rows, size_t c, size_t r) {
  frame::Cell v;
  std::memcpy(static_cast<void*>(&v), chunk + (c * rows + r) * kCell, kCell);
  return v;
}

// The position of row r of a chunk of `rows` rows of `columns` columns.
uint64_t position_of(const char* chunk, size_t rows, size_t columns, size_t r) {
  uint64_t v;
  std::memcpy(&v, chunk + columns * rows * kCell + r * sizeof(uint64_t), sizeof v);
  return v;
}

}  // namespace

SortedRuns::SortedRuns(size_t columns, size_t chunk_rows, std::shared_ptr<runtime::SpillFile> file)
    : columns_(columns),
      by_position_(true),
      chunk_rows_(std::max<size_t>(chunk_rows, 1)),
      file_(std::move(file)),
      pending_(columns) {}

SortedRuns::SortedRuns(size_t columns, std::vector<size_t> keys, size_t run_rows, size_t chunk_rows,
                       std::shared_ptr<runtime::SpillFile> file)
    : columns_(columns),
      by_position_(false),
      keys_(std::move(keys)),
      run_rows_(std::max<size_t>(run_rows, 1)),
      chunk_rows_(std::max<size_t>(chunk_rows, 1)),
      file_(std::move(file)),
      pending_(columns) {}

size_t SortedRuns::chunk_bytes(size_t n) const {
  return n * (columns_ * kCell + (by_position_ ? sizeof(uint64_t) : 0));
}

void SortedRuns::add(const frame::Frame& rows, const std::vector<uint64_t>& pos) {
  if (!by_position_)
    throw std::logic_error("SortedRuns: rows ordered by keys added with positions");
  if (pos.empty()) return;
  if (rows_ > 0 && pos.front() < last_) {  // earlier than the run so far: a new run
    store_pending();
    new_run_ = true;
  }
  for (size_t c = 0; c < columns_; ++c) {
    const auto& in = rows.columns[c].cells;
    pending_[c].insert(pending_[c].end(), in.begin(), in.end());
  }
  pending_pos_.insert(pending_pos_.end(), pos.begin(), pos.end());
  pending_rows_ += pos.size();
  rows_ += pos.size();
  last_ = pos.back();
  if (pending_rows_ < chunk_rows_) return;
  const size_t full = pending_rows_ / chunk_rows_ * chunk_rows_;
  for (size_t at = 0; at < full; at += chunk_rows_) store(at, at + chunk_rows_, nullptr);
  for (auto& c : pending_) c.erase(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(full));
  pending_pos_.erase(pending_pos_.begin(),
                     pending_pos_.begin() + static_cast<std::ptrdiff_t>(full));
  pending_rows_ -= full;
}

void SortedRuns::add(const frame::Frame& rows, size_t from) {
  if (by_position_)
    throw std::logic_error("SortedRuns: rows ordered by position added without positions");
  const size_t n = rows.rows();
  for (size_t at = from; at < n;) {
    const size_t take = std::min(n - at, run_rows_ - pending_rows_);
    for (size_t c = 0; c < columns_; ++c) {
      const auto& in = rows.columns[c].cells;
      pending_[c].insert(pending_[c].end(), in.begin() + static_cast<std::ptrdiff_t>(at),
                         in.begin() + static_cast<std::ptrdiff_t>(at + take));
    }
    at += take;
    pending_rows_ += take;
    rows_ += take;
    if (pending_rows_ == run_rows_) store_run();
  }
}

void SortedRuns::finish() {
  if (by_position_)
    store_pending();
  else
    store_run();
  for (auto& c : pending_) std::vector<frame::Cell>().swap(c);
  std::vector<uint64_t>().swap(pending_pos_);
}

// By position: the pending rows, in the order added, as the current run's next chunk.
void SortedRuns::store_pending() {
  if (pending_rows_ > 0) store(0, pending_rows_, nullptr);
  for (auto& c : pending_) c.clear();
  pending_pos_.clear();
  pending_rows_ = 0;
}

// By keys: the pending rows stably sorted by the keys, stored as one run of chunks.
void SortedRuns::store_run() {
  const size_t n = pending_rows_;
  if (n == 0) return;
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), uint32_t{0});
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    for (size_t k : keys_) {
      const int x = frame::compare_cells(pending_[k][a], pending_[k][b]);
      if (x != 0) return x < 0;
    }
    return false;
  });
  new_run_ = true;
  for (size_t from = 0; from < n; from += chunk_rows_)
    store(from, std::min(from + chunk_rows_, n), order.data());
  for (auto& c : pending_) c.clear();
  pending_rows_ = 0;
}

// Pending rows [from, to) (of `order` when not null) as one chunk: each column's cells, then the
// positions (by position).
void SortedRuns::store(size_t from, size_t to, const uint32_t* order) {
  const size_t n = to - from;
  Chunk chunk;
  chunk.rows = static_cast<uint32_t>(n);
  chunk.bytes.resize(chunk_bytes(n));
  chunk.first.resize(chunk_bytes(1));
  char* p = chunk.bytes.data();
  char* first = chunk.first.data();
  for (size_t c = 0; c < columns_; ++c) {
    const frame::Cell* in = pending_[c].data();
    if (order) {
      for (size_t r = from; r < to; ++r, p += kCell)
        std::memcpy(p, static_cast<const void*>(in + order[r]), kCell);
    } else {
      std::memcpy(p, static_cast<const void*>(in + from), n * kCell);
      p += n * kCell;
    }
    std::memcpy(first + c * kCell, p - n * kCell, kCell);
  }
  if (by_position_) {
    std::memcpy(p, pending_pos_.data() + from, n * sizeof(uint64_t));
    std::memcpy(first + columns_ * kCell, p, sizeof(uint64_t));
  }
  if (file_ && problem_.empty()) {
    try {
      chunk.block = file_->append(chunk.bytes.data(), chunk.bytes.size());
      chunk.in_file = true;
      std::vector<char>().swap(chunk.bytes);
    } catch (const std::exception& e) {
      problem_ = e.what();  // this chunk and the rest stay held (the earlier ones are read back)
    }
  }
  if (new_run_) runs_.emplace_back();
  new_run_ = false;
  runs_.back().push_back(std::move(chunk));
}

struct SortedRuns::Merger::Cursor {
  size_t run = 0;
  size_t chunk = 0;  // the chunk loaded, else the next to load
  bool loaded = false;
  const char* data = nullptr;  // the loaded chunk's bytes: `bytes`, or the chunk held
  size_t rows = 0;             // ... its rows
  size_t at = 0;               // ... its next row
  std::vector<char> bytes;     // the loaded chunk, read from the file
};

SortedRuns::Merger::Merger(const SortedRuns& runs) : runs_(runs) {
  for (size_t r = 0; r < runs.runs_.size(); ++r) {
    if (runs.runs_[r].empty()) continue;
    cursors_.push_back({});
    cursors_.back().run = r;
    heap_.push_back(cursors_.size() - 1);  // (made a heap by merge())
  }
}

SortedRuns::Merger::~Merger() = default;

// A cursor's next row: of its loaded chunk, else its next chunk's first.
SortedRuns::Row SortedRuns::Merger::head(const Cursor& c) const {
  if (c.loaded) return {c.data, c.rows, c.at, c.run};
  return {runs_.runs_[c.run][c.chunk].first.data(), 1, 0, c.run};
}

void SortedRuns::Merger::load(Cursor& c) {
  const Chunk& chunk = runs_.runs_[c.run][c.chunk];
  if (chunk.in_file) {
    runs_.file_->read(chunk.block, c.bytes);
    if (c.bytes.size() != runs_.chunk_bytes(chunk.rows))
      throw std::runtime_error("a sorted run's chunk was read back short");
    c.data = c.bytes.data();
  } else {
    c.data = chunk.bytes.data();
  }
  c.rows = chunk.rows;
  c.at = 0;
  c.loaded = true;
}

bool SortedRuns::Merger::next(std::vector<std::vector<frame::Cell>>& out, size_t max_rows) {
  // The order, then the earlier run on equal order.
  const size_t columns = runs_.columns_;
  if (runs_.by_position_)
    return merge(out, max_rows, [columns](const Row& x, const Row& y) {
      const uint64_t a = position_of(x.chunk, x.rows, columns, x.at);
      const uint64_t b = position_of(y.chunk, y.rows, columns, y.at);
      return a != b ? a < b : x.run < y.run;
    });
  const std::vector<size_t>& keys = runs_.keys_;
  return merge(out, max_rows, [&keys](const Row& x, const Row& y) {
    for (size_t k : keys) {
      const int d = frame::compare_cells(cell_of(x.chunk, x.rows, k, x.at),
                                         cell_of(y.chunk, y.rows, k, y.at));
      if (d != 0) return d < 0;
    }
    return x.run < y.run;
  });
}

template <class Before>
bool SortedRuns::Merger::merge(std::vector<std::vector<frame::Cell>>& out, size_t max_rows,
                               const Before& before) {
  const size_t columns = runs_.columns_;
  out.assign(columns, {});
  for (auto& c : out) c.reserve(std::min<uint64_t>(max_rows, runs_.rows_));
  // The heap's order: a cursor after another when its next row comes after the other's.
  auto later = [&](size_t a, size_t b) { return before(head(cursors_[b]), head(cursors_[a])); };
  std::make_heap(heap_.begin(), heap_.end(), later);
  size_t n = 0;
  while (n < max_rows && !heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    Cursor& c = cursors_[heap_.back()];
    if (!c.loaded) {
      load(c);
      std::push_heap(heap_.begin(), heap_.end(), later);
      continue;
    }
    // The rows of this cursor that come before every other cursor's next.
    const size_t limit = std::min(c.rows, c.at + (max_rows - n));
    size_t end = limit;
    if (heap_.size() > 1) {
      const Row other = head(cursors_[heap_.front()]);
      end = c.at + 1;
      while (end < limit && before(Row{c.data, c.rows, end, c.run}, other)) ++end;
    }
    const size_t take = end - c.at;
    if (take == 1) {  // (runs that interleave row by row)
      for (size_t col = 0; col < columns; ++col)
        out[col].push_back(cell_of(c.data, c.rows, col, c.at));
    } else {
      for (size_t col = 0; col < columns; ++col) {
        auto& cells = out[col];
        const size_t had = cells.size();
        cells.resize(had + take);
        std::memcpy(static_cast<void*>(cells.data() + had), c.data + (col * c.rows + c.at) * kCell,
                    take * kCell);
      }
    }
    n += take;
    c.at = end;
    if (c.at == c.rows) {
      std::vector<char>().swap(c.bytes);
      c.loaded = false;
      c.data = nullptr;
      if (++c.chunk == runs_.runs_[c.run].size()) {
        heap_.pop_back();
        continue;
      }
    }
    std::push_heap(heap_.begin(), heap_.end(), later);
  }
  return n > 0;
}

}  // namespace cs::recipes
