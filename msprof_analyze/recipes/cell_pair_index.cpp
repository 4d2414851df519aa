#include "msprof_analyze/recipes/cell_pair_index.h"

#include <stdexcept>

#include "frame/frame_ops.h"

namespace cs::recipes {

uint64_t CellPairIndex::hash(const frame::Cell& a, const frame::Cell& b) {
  const uint64_t h = frame::cell_key_hash(a) * 0x9e3779b97f4a7c15ull ^ frame::cell_key_hash(b);
  return h ^ (h >> 29);  // the table takes the low bits
}

std::pair<uint32_t, bool> CellPairIndex::find_or_add(const frame::Cell& a, const frame::Cell& b) {
  const size_t mask = slots_.size() - 1;
  size_t pos = hash(a, b) & mask;
  for (; slots_[pos] != kEmpty; pos = (pos + 1) & mask) {
    const auto& [x, y] = pairs_[slots_[pos]];
    if (frame::cell_key_equal(x, a) && frame::cell_key_equal(y, b)) return {slots_[pos], false};
  }
  if (pairs_.size() >= kEmpty - 1) throw std::length_error("more than 2^32 - 2 pairs of cells");
  const auto k = static_cast<uint32_t>(pairs_.size());
  pairs_.emplace_back(a, b);
  slots_[pos] = k;
  if (pairs_.size() * 2 > slots_.size()) grow();
  return {k, true};
}

int64_t CellPairIndex::find(const frame::Cell& a, const frame::Cell& b) const {
  const size_t mask = slots_.size() - 1;
  for (size_t pos = hash(a, b) & mask; slots_[pos] != kEmpty; pos = (pos + 1) & mask) {
    const auto& [x, y] = pairs_[slots_[pos]];
    if (frame::cell_key_equal(x, a) && frame::cell_key_equal(y, b)) return slots_[pos];
  }
  return -1;
}

void CellPairIndex::grow() {
  std::vector<uint32_t>(slots_.size() * 2, kEmpty).swap(slots_);
  const size_t mask = slots_.size() - 1;
  for (uint32_t k = 0; k < pairs_.size(); ++k) {
    size_t pos = hash(pairs_[k].first, pairs_[k].second) & mask;
    while (slots_[pos] != kEmpty) pos = (pos + 1) & mask;
    slots_[pos] = k;
  }
}

}  // namespace cs::recipes
