#include "msprof_analyze/recipes/hccl_sum/hccl_sum.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "frame/duration_stats.h"
#include "frame/frame_ops.h"
#include "frame/pandas_sort.h"
#include "msprof_analyze/recipes/communication_group_map/communication_group_map.h"
#include "msprof_analyze/recipes/frame_writers.h"
#include "msprof_analyze/recipes/hccl_sum/hccl_sum_scan.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"
#include "runtime/task_runner.h"

namespace cs::recipes::hccl_sum {

namespace {

const char* kQuery =
    "SELECT NAME_IDS.value AS \"OpName\", TYPE_IDS.value AS \"OpType\", "
    "round(endNs - startNs) AS \"Duration\", GROUP_NAME_IDS.value AS \"GroupName\" "
    "FROM COMMUNICATION_OP "
    "LEFT JOIN STRING_IDS AS TYPE_IDS ON TYPE_IDS.id = COMMUNICATION_OP.opType "
    "LEFT JOIN STRING_IDS AS NAME_IDS ON NAME_IDS.id = COMMUNICATION_OP.opName "
    "LEFT JOIN STRING_IDS AS GROUP_NAME_IDS ON GROUP_NAME_IDS.id = COMMUNICATION_OP.groupName "
    "WHERE COMMUNICATION_OP.startNs >= ? and COMMUNICATION_OP.startNs <= ?";

constexpr size_t kTopNum = 15;

// DataFrame.nlargest(n, "MeanNs") with keep="first": when n covers every row, sort_values
// descending; else the rows at or above the n-th largest, stably by descending mean, first n.
std::vector<size_t> nlargest(const frame::FrameColumn& mean, size_t n) {
  const size_t rows = mean.cells.size();
  auto less = [&](size_t a, size_t b) { return mean.cells[a].num() < mean.cells[b].num(); };
  if (n >= rows) return frame::pandas_sort_order(rows, less, false);
  std::vector<size_t> order(rows);
  for (size_t i = 0; i < rows; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return mean.cells[a].num() > mean.cells[b].num(); });
  order.resize(n);
  return order;
}

}  // namespace

const char* hccl_sum_sql() {
  return kQuery;
}

bool HcclSum::map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const {
  return map_profiler_query(paths, "hccl_sum.communication_ops", kQuery,
                            {"COMMUNICATION_OP", "STRING_IDS"}, out, diag, scan_hccl_ops);
}

bool HcclSum::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                     io::Diagnostics& diag) const {
  const std::vector<const frame::Frame*> frames = used_frames(parts);
  if (frames.empty()) return true;
  // Per rank, by op type, ordered by rank.
  std::vector<frame::Frame> per_rank(frames.size());
  std::vector<const frame::Frame*> per_rank_ptrs;
  runtime::parallel_for(frames.size(), out.threads, [&](size_t i) {
    per_rank[i] = frame::describe_duration(*frames[i], {"OpType"}, "Duration");
    frame::assign(per_rank[i], "Rank", frames[i]->columns.back().cells.front());
  });
  for (const auto& f : per_rank) per_rank_ptrs.push_back(&f);
  frame::Frame rank_stats = frame::concat_frames(per_rank_ptrs, frame::column_union(per_rank_ptrs));
  rank_stats.index_columns = 1;
  rank_stats = frame::sort_by(rank_stats, "Rank", true);
  const frame::Frame all = frame::concat_frames(frames, frame::column_union(frames));
  const frame::Frame all_stats = frame::describe_duration(all, {"OpType"}, "Duration");
  // Top ops by mean, with the ranks of their fastest and slowest instance.
  frame::Frame by_name = frame::describe_duration(all, {"OpName"}, "Duration");
  frame::Frame top =
      frame::take(by_name, nlargest(*frame::find_column(by_name, "MeanNs"), kTopNum));
  const auto name_groups = frame::group_rows(all, {"OpName"}, true);
  std::map<std::string, const std::vector<size_t>*> rows_of;
  const frame::FrameColumn& names = *frame::find_column(all, "OpName");
  const frame::FrameColumn& dur = *frame::find_column(all, "Duration");
  const frame::FrameColumn& rank = *frame::find_column(all, "Rank");
  for (const auto& g : name_groups) rows_of[frame::cell_key(names.cells[g.front()])] = &g;
  auto& min_rank = top.add("MinRank");
  auto& max_rank = top.add("MaxRank");
  for (size_t r = 0; r < top.rows(); ++r) {
    const auto& g = *rows_of[frame::cell_key(top.columns[0].cells[r])];
    const double lo = top.columns[4].cells[r].num(), hi = top.columns[8].cells[r].num();
    frame::Cell at_min, at_max;
    for (size_t i : g) {
      const double d = dur.cells[i].num();
      if (at_min.is_null() && d == lo) at_min = rank.cells[i];
      if (at_max.is_null() && d == hi) at_max = rank.cells[i];
    }
    min_rank.push_back(at_min);
    max_rank.push_back(at_max);
  }
  // Each group's ranks: the first row of each rank in the group, ordered by that row's index
  // within its rank's frame (sort_index over the concatenated frames' indexes).
  frame::Frame groups;
  auto& gname = groups.add("GroupName");
  auto& gid = groups.add("GroupId");
  auto& granks = groups.add("Ranks");
  groups.index_columns = 1;
  std::vector<size_t> local_index;
  for (const frame::Frame* f : frames)
    for (size_t r = 0; r < f->rows(); ++r) local_index.push_back(r);
  const frame::FrameColumn& gcol = *frame::find_column(all, "GroupName");
  for (const auto& g : frame::group_rows(all, {"GroupName"}, true)) {
    std::vector<size_t> firsts;
    std::set<std::string> seen;
    for (size_t i : g)
      if (seen.insert(frame::cell_key(rank.cells[i])).second) firsts.push_back(i);
    // sort_index leaves an index that is already in order as it is, else numpy's quicksort.
    bool monotonic = true;
    for (size_t k = 1; k < firsts.size(); ++k)
      monotonic = monotonic && local_index[firsts[k - 1]] <= local_index[firsts[k]];
    std::vector<size_t> order(firsts.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    if (!monotonic)
      order = frame::numpy_argsort(firsts.size(), [&](size_t a, size_t b) {
        return local_index[firsts[a]] < local_index[firsts[b]];
      });
    std::string text;
    for (size_t k = 0; k < order.size(); ++k)
      text += (k ? ";" : "") + std::to_string(rank.cells[firsts[order[k]]].i());
    const frame::Cell& name = gcol.cells[g.front()];
    const std::string hash = communication_group_map::double_hash_text(
        name.kind == frame::Cell::Kind::kText ? name.str() : "");
    gname.push_back(name);
    gid.push_back(frame::Cell::text(hash.size() > 3 ? hash.substr(hash.size() - 3) : hash));
    granks.push_back(frame::Cell::text(text));
  }
  groups = frame::sort_by(groups, "GroupId", true);
  return dump_recipe_frame(all_stats, out, dir_name(), "all_stats.csv", "HcclAllRankStats", diag) &&
         dump_recipe_frame(rank_stats, out, dir_name(), "rank_stats.csv", "HcclPerRankStats",
                           diag) &&
         dump_recipe_frame(top, out, dir_name(), "top_op_stats.csv", "HcclTopOpStats", diag) &&
         dump_recipe_frame(groups, out, dir_name(), "group_name_map.csv", "HcclGroupNameMap", diag);
}

}  // namespace cs::recipes::hccl_sum
