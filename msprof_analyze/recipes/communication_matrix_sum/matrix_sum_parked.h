#pragma once
// communication_matrix_sum's merge of ranks whose matrix is parked on disk (issue 38,
// docs/root_memory.md "The DB export's memory"; msprof_analyze/recipes/parked_frames.h), and the
// pieces of the merge it shares with the merge of the concatenated ranks
// (communication_matrix_sum.cpp).

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "frame/frame.h"
#include "frame/frame_ops.h"
#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes::communication_matrix_sum {

// A group's local ranks (as cells, compared as cell_key()s) and their global ranks, in order of
// first appearance, with an index (a group may hold every rank of a large job).
struct GroupRanks {
  std::vector<std::pair<frame::Cell, int>> local_to_global;
  std::unordered_map<frame::Cell, int, frame::CellKeyHash, frame::CellKeyEqual> index;
  const int* find(const frame::Cell& local) const {
    auto it = index.find(local);
    return it == index.end() ? nullptr : &it->second;
  }
  void add(const frame::Cell& local, int global) {
    if (index.emplace(local, global).second) local_to_global.emplace_back(local, global);
  }
};

using RankMap =
    std::unordered_map<frame::Cell, GroupRanks, frame::CellKeyHash, frame::CellKeyEqual>;

// Column `name` of `f`, or nullptr.
const std::vector<frame::Cell>* cells_of(const frame::Frame& f, const std::string& name);
// Row `r` of column `c` (NULL when there is no column).
const frame::Cell& at(const std::vector<frame::Cell>* c, size_t r);
// Adds which global rank (`rank`) each group's local rank is in `f`, a rank's rows: its own
// (src == dst) rows.
void add_local_ranks(RankMap& rank_map, const frame::Frame& f, int rank);
// What the merges need of a rank's matrix `f` without its links, kept beside its parked frame:
// the columns add_local_ranks reads (src_rank, dst_rank, group_name: those `f` has) of its own
// rows (src == dst), the first of each (group, local rank) in order (what add_local_ranks finds
// in `f` it finds in them: a few rows, one per group the rank is in), then one row per other
// (group, src) pair of its rows, dst NULL: touched() finds the same pairs in them as in `f`.
frame::Frame own_rows(const frame::Frame& f);
// The (group, src) pairs of `f`'s rows with both set, each once, in order.
std::vector<std::pair<frame::Cell, frame::Cell>> touched(const frame::Frame& f);
// The merged matrix's columns, empty.
frame::Frame output_frame();
// Per link of `out` (the merged links), the "-total" rows summed into one "Total Op Info" row
// appended to it.
void append_totals(frame::Frame& out);
// The "Total Op Info" rows append_totals appends; `first` (when set) gets each one's first
// "-total" row of `out`.
frame::Frame total_rows(const frame::Frame& out, std::vector<size_t>* first = nullptr);

// True when some used part has its matrix parked on disk.
bool any_parked(const std::vector<RankPartial>& parts);
// The merged matrix of `parts` (in rank order), the parked ones read back rank by rank, the
// matrix frames taken: the same rows as merge_communication_matrix of the held frames
// (stream_matrix's rows collected, held in memory: matrix_sum_stream.h). Throws
// std::runtime_error when a parked frame cannot be read back.
frame::Frame merge_parked(std::vector<RankPartial>& parts);

}  // namespace cs::recipes::communication_matrix_sum
