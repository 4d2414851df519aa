#include "msprof_analyze/recipes/communication_matrix_sum/matrix_runs.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace cs::recipes::communication_matrix_sum {

namespace {

static_assert(std::is_trivially_copyable_v<frame::Cell>);
constexpr size_t kChunkRows = 4096;

}  // namespace

SortedRuns::SortedRuns(size_t columns, std::shared_ptr<runtime::SpillFile> file)
    : columns_(columns), file_(std::move(file)), pending_(columns) {}

void SortedRuns::add(const frame::Frame& rows, const std::vector<uint64_t>& pos) {
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
  rows_ += pos.size();
  last_ = pos.back();
  if (pending_pos_.size() < kChunkRows) return;
  const size_t full = pending_pos_.size() / kChunkRows * kChunkRows;
  for (size_t at = 0; at < full; at += kChunkRows) store(at, at + kChunkRows);
  for (auto& c : pending_) c.erase(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(full));
  pending_pos_.erase(pending_pos_.begin(),
                     pending_pos_.begin() + static_cast<std::ptrdiff_t>(full));
}

void SortedRuns::finish() {
  store_pending();
  for (auto& c : pending_) std::vector<frame::Cell>().swap(c);
  std::vector<uint64_t>().swap(pending_pos_);
}

void SortedRuns::store_pending() {
  if (!pending_pos_.empty()) store(0, pending_pos_.size());
  for (auto& c : pending_) c.clear();
  pending_pos_.clear();
}

// Pending rows [from, to) as one chunk: each column's cells, then the positions.
void SortedRuns::store(size_t from, size_t to) {
  const size_t n = to - from;
  Chunk chunk;
  chunk.first = pending_pos_[from];
  chunk.rows = static_cast<uint32_t>(n);
  chunk.bytes.resize(n * (columns_ * sizeof(frame::Cell) + sizeof(uint64_t)));
  char* p = chunk.bytes.data();
  for (size_t c = 0; c < columns_; ++c) {
    std::memcpy(p, pending_[c].data() + from, n * sizeof(frame::Cell));
    p += n * sizeof(frame::Cell);
  }
  std::memcpy(p, pending_pos_.data() + from, n * sizeof(uint64_t));
  if (file_ && problem_.empty()) {
    try {
      chunk.block = file_->append(chunk.bytes.data(), chunk.bytes.size());
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
  size_t at = 0;      // the next row of the loaded chunk
  uint32_t rows = 0;  // the loaded chunk's
  std::vector<char> bytes;
  frame::Cell cell(size_t c, size_t r) const {
    frame::Cell v;
    std::memcpy(static_cast<void*>(&v), bytes.data() + (c * rows + r) * sizeof(frame::Cell),
                sizeof v);
    return v;
  }
  uint64_t pos(size_t columns, size_t r) const {
    uint64_t v;
    std::memcpy(&v, bytes.data() + (columns * rows) * sizeof(frame::Cell) + r * sizeof(uint64_t),
                sizeof v);
    return v;
  }
};

SortedRuns::Merger::Merger(const SortedRuns& runs) : runs_(runs) {
  for (size_t r = 0; r < runs.runs_.size(); ++r) {
    if (runs.runs_[r].empty()) continue;
    cursors_.push_back({});
    cursors_.back().run = r;
  }
  for (size_t i = 0; i < cursors_.size(); ++i) heap_.push_back(i);  // (made a heap by next())
}

SortedRuns::Merger::~Merger() = default;

void SortedRuns::Merger::load(Cursor& c) {
  const Chunk& chunk = runs_.runs_[c.run][c.chunk];
  if (chunk.bytes.empty() && chunk.rows > 0)
    runs_.file_->read(chunk.block, c.bytes);
  else
    c.bytes = chunk.bytes;
  if (c.bytes.size() != chunk.rows * (runs_.columns_ * sizeof(frame::Cell) + sizeof(uint64_t)))
    throw std::runtime_error("a sorted run's chunk was read back short");
  c.rows = chunk.rows;
  c.at = 0;
  c.loaded = true;
}

bool SortedRuns::Merger::next(std::vector<std::vector<frame::Cell>>& out, size_t max_rows) {
  const size_t columns = runs_.columns_;
  out.assign(columns, {});
  for (auto& c : out) c.reserve(std::min<uint64_t>(max_rows, runs_.rows_));
  // The key of a cursor: its next row's position, or its next chunk's first (not loaded yet);
  // on equal keys the earlier run first.
  auto key = [&](size_t i) {
    const Cursor& c = cursors_[i];
    return std::pair{c.loaded ? c.pos(columns, c.at) : runs_.runs_[c.run][c.chunk].first, c.run};
  };
  auto later = [&](size_t a, size_t b) { return key(a) > key(b); };
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
    // Rows of this cursor while they come before every other cursor's next.
    const bool alone = heap_.size() == 1;
    do {
      for (size_t col = 0; col < columns; ++col) out[col].push_back(c.cell(col, c.at));
      ++c.at;
      ++n;
    } while (n < max_rows && c.at < c.rows &&
             (alone || std::pair{c.pos(columns, c.at), c.run} < key(heap_.front())));
    if (c.at == c.rows) {
      std::vector<char>().swap(c.bytes);
      c.loaded = false;
      if (++c.chunk == runs_.runs_[c.run].size()) {
        heap_.pop_back();
        continue;
      }
    }
    std::push_heap(heap_.begin(), heap_.end(), later);
  }
  return n > 0;
}

}  // namespace cs::recipes::communication_matrix_sum
