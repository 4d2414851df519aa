#pragma once
// Pairs of cells numbered 0, 1, 2, ... in the order they are first seen: the collective instances
// (group, op name) of slow_rank and slow_link. Cells are equal as their cell_key()s are
// (frame::cell_key_equal). An open-addressing table of 32-bit numbers over the pairs, kept in
// order: 40-48 bytes a pair, where an unordered_map spent about 90 (at 16,384 DB ranks the
// reduces keep some 170,000 instances).

#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "frame/frame.h"

namespace cs::recipes {

class CellPairIndex {
 public:
  // The number of pair (a, b), and whether it was seen now for the first time.
  std::pair<uint32_t, bool> find_or_add(const frame::Cell& a, const frame::Cell& b);
  // The number of pair (a, b); -1 when it was never added.
  int64_t find(const frame::Cell& a, const frame::Cell& b) const;
  // Pair k's cells.
  const frame::Cell& first(uint32_t k) const { return pairs_[k].first; }
  const frame::Cell& second(uint32_t k) const { return pairs_[k].second; }
  size_t size() const { return pairs_.size(); }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  static uint64_t hash(const frame::Cell& a, const frame::Cell& b);
  void grow();
  std::deque<std::pair<frame::Cell, frame::Cell>> pairs_;  // never copied whole as it grows
  std::vector<uint32_t> slots_ =
      std::vector<uint32_t>(16, kEmpty);  // a power of two, under half full
};

}  // namespace cs::recipes
