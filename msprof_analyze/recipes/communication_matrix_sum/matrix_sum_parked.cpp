#include "msprof_analyze/recipes/communication_matrix_sum/matrix_sum_parked.h"

#include <unordered_set>

#include "msprof_analyze/recipes/communication_matrix_sum/matrix_sum_stream.h"
#include "msprof_analyze/recipes/parked_frames.h"

namespace cs::recipes::communication_matrix_sum {

namespace {

// (group, src) pairs compared as cell keys.
struct PairHash {
  size_t operator()(const std::pair<frame::Cell, frame::Cell>& p) const {
    return frame::cell_key_hash(p.first) * 0x100000001b3ull ^ frame::cell_key_hash(p.second);
  }
};
struct PairEqual {
  bool operator()(const std::pair<frame::Cell, frame::Cell>& a,
                  const std::pair<frame::Cell, frame::Cell>& b) const {
    return frame::cell_key_equal(a.first, b.first) && frame::cell_key_equal(a.second, b.second);
  }
};

}  // namespace

frame::Frame own_rows(const frame::Frame& f) {
  frame::Frame out;
  const std::vector<frame::Cell>* src_c = cells_of(f, "src_rank");
  const std::vector<frame::Cell>* dst_c = cells_of(f, "dst_rank");
  if (!src_c) return out;
  const std::vector<frame::Cell>* group_c = cells_of(f, "group_name");
  // Only the first row of each (group, local rank): add_local_ranks does nothing with the others.
  std::vector<size_t> own;
  for (size_t r = 0; r < f.rows(); ++r) {
    const frame::Cell& src = (*src_c)[r];
    if (src.is_null() || !(src == at(dst_c, r))) continue;
    bool seen = false;
    for (size_t o : own)
      seen = seen || (frame::cell_key_equal((*src_c)[o], src) &&
                      frame::cell_key_equal(at(group_c, o), at(group_c, r)));
    if (!seen) own.push_back(r);
  }
  // Then the other (group, src) pairs, once each.
  std::vector<size_t> other;
  {
    std::unordered_set<std::pair<frame::Cell, frame::Cell>, PairHash, PairEqual> seen;
    for (size_t o : own) seen.insert({at(group_c, o), (*src_c)[o]});
    for (size_t r = 0; r < f.rows(); ++r) {
      const frame::Cell &src = (*src_c)[r], &group = at(group_c, r);
      if (!src.is_null() && !group.is_null() && seen.insert({group, src}).second)
        other.push_back(r);
    }
  }
  for (const char* name : {"src_rank", "dst_rank", "group_name"}) {
    const std::vector<frame::Cell>* in = cells_of(f, name);
    if (!in) continue;
    auto& cells = out.add(name).cells;
    cells.reserve(own.size() + other.size());
    for (size_t r : own) cells.push_back((*in)[r]);
    for (size_t r : other) cells.push_back(in == dst_c ? frame::Cell::null() : (*in)[r]);
  }
  return out;
}

std::vector<std::pair<frame::Cell, frame::Cell>> touched(const frame::Frame& f) {
  std::vector<std::pair<frame::Cell, frame::Cell>> out;
  const std::vector<frame::Cell>* src_c = cells_of(f, "src_rank");
  const std::vector<frame::Cell>* group_c = cells_of(f, "group_name");
  if (!src_c || !group_c) return out;
  std::unordered_set<std::pair<frame::Cell, frame::Cell>, PairHash, PairEqual> seen;
  for (size_t r = 0; r < f.rows(); ++r) {
    const frame::Cell &src = (*src_c)[r], &group = (*group_c)[r];
    if (!src.is_null() && !group.is_null() && seen.insert({group, src}).second)
      out.emplace_back(group, src);
  }
  return out;
}

frame::Frame merge_parked(std::vector<RankPartial>& parts) {
  bool any = false;
  for (const auto& p : parts) any = any || (p.used && frame_rows(p, "matrix") > 0);
  if (!any) return {};
  return collect_matrix(*stream_matrix(parts, nullptr));
}

bool any_parked(const std::vector<RankPartial>& parts) {
  for (const auto& p : parts)
    if (p.used && has_frame(p, "matrix") && !p.frames.contains("matrix")) return true;
  return false;
}

}  // namespace cs::recipes::communication_matrix_sum
