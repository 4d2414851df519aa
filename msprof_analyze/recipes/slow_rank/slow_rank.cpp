#include "msprof_analyze/recipes/slow_rank/slow_rank.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "frame/duration_stats.h"
#include "frame/frame_ops.h"
#include "frame/pandas_math.h"
#include "frame/pandas_sort.h"
#include "msprof_analyze/recipes/cell_pair_index.h"
#include "msprof_analyze/recipes/parked_frames.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"
#include "msprof_analyze/recipes/rows_by_group.h"
#include "msprof_analyze/recipes/slow_rank/slow_rank_scan.h"

namespace cs::recipes::slow_rank {

namespace {

// msprof-analyze's per-rank query (CommunicationTimeExport): durations in microseconds, only ops
// whose CANN_API launch starts in the step range (two parameters).
const char* kQuery =
    "SELECT RANK_DEVICE_MAP.rankId, si_group.value AS groupName, si_op.value AS opName, "
    "COMMUNICATION_OP.startNs as startNs, "
    "(COMMUNICATION_OP.endNs - COMMUNICATION_OP.startNs) / 1000.0 AS communication_time "
    "FROM COMMUNICATION_OP CROSS JOIN RANK_DEVICE_MAP "
    "JOIN STRING_IDS si_group ON COMMUNICATION_OP.groupName = si_group.id "
    "JOIN STRING_IDS si_op ON COMMUNICATION_OP.opName = si_op.id "
    "JOIN CANN_API ON CANN_API.connectionId = COMMUNICATION_OP.connectionId "
    "WHERE CANN_API.startNs >= ? and CANN_API.startNs <= ?";

// Dixon's one-sided test at 99.5%: the critical value for n = 3..100 values.
constexpr double kDixon995[] = {
    0.994, 0.920, 0.823, 0.744, 0.680, 0.723, 0.676, 0.638, 0.707, 0.675, 0.649, 0.672, 0.649,
    0.629, 0.611, 0.595, 0.580, 0.568, 0.556, 0.545, 0.536, 0.526, 0.519, 0.510, 0.503, 0.496,
    0.489, 0.484, 0.478, 0.473, 0.468, 0.463, 0.458, 0.454, 0.450, 0.446, 0.442, 0.439, 0.435,
    0.432, 0.429, 0.425, 0.423, 0.420, 0.417, 0.414, 0.412, 0.409, 0.407, 0.405, 0.402, 0.400,
    0.398, 0.396, 0.394, 0.392, 0.391, 0.388, 0.387, 0.385, 0.383, 0.382, 0.380, 0.379, 0.377,
    0.376, 0.374, 0.372, 0.371, 0.370, 0.368, 0.368, 0.366, 0.365, 0.364, 0.363, 0.361, 0.360,
    0.359, 0.358, 0.356, 0.356, 0.355, 0.353, 0.352, 0.352, 0.351, 0.350, 0.349, 0.348, 0.347,
    0.346, 0.345, 0.344, 0.344, 0.343, 0.341, 0.341};
constexpr size_t kMaxDixon = 100;

// numpy's mean and population standard deviation of a list (pairwise sums).
double np_mean(const std::vector<double>& v) {
  return frame::numpy_sum(v) / static_cast<double>(v.size());
}
double np_std(const std::vector<double>& v) {
  const double mean = np_mean(v);
  std::vector<double> sq(v.size());
  for (size_t i = 0; i < v.size(); ++i) sq[i] = (v[i] - mean) * (v[i] - mean);
  return std::sqrt(frame::numpy_sum(sq) / static_cast<double>(v.size()));
}

size_t first_index_of(const std::vector<double>& v, double x) {
  return static_cast<size_t>(std::find(v.begin(), v.end(), x) - v.begin());
}

std::vector<size_t> judge_dixon(const std::vector<double>& times) {
  const size_t n = times.size();
  if (n < 3) return {};
  std::vector<double> s = times;
  std::sort(s.begin(), s.end());
  std::vector<double> distinct = s;
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  if (distinct.size() <= 3) return {};
  // The gap of the smallest value(s) over the range without the largest value(s).
  const size_t low = n <= 10 ? 1 : 2;
  const size_t high = n <= 7 ? n - 1 : n <= 13 ? n - 2 : n - 3;
  const double range = s[high] - s[0];
  const double ratio = range != 0 ? (s[low] - s[0]) / range : 0;
  if (ratio > kDixon995[n - 3]) return {first_index_of(times, s[0])};
  return {};
}

std::vector<size_t> judge_three_sigma(const std::vector<double>& times) {
  const double mean = np_mean(times), sd = np_std(times);
  const double high = mean + 3 * sd, low = mean - 3 * sd;
  std::vector<size_t> out;
  for (size_t i = 0; i < times.size(); ++i)
    if (times[i] < low) out.push_back(i);
  const double mx = *std::max_element(times.begin(), times.end());
  if (mx > high) {
    const size_t at_min = first_index_of(times, *std::min_element(times.begin(), times.end()));
    if (std::find(out.begin(), out.end(), at_min) == out.end()) out.push_back(at_min);
  }
  return out;
}

// Series' count, mean, std, min, quartiles, max and sum, as pandas 1.5 computes them.
std::vector<frame::Cell> series_stats(const std::vector<double>& v) {
  std::vector<double> s = v;
  std::sort(s.begin(), s.end());
  const size_t n = s.size();
  const double median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  return {frame::Cell::integer(static_cast<int64_t>(n)),
          frame::Cell::real(frame::series_mean(v)),
          frame::Cell::real(frame::series_std(v)),
          frame::Cell::real(s.front()),
          frame::Cell::real(frame::numpy_quantile_linear(s, 0.25)),
          frame::Cell::real(median),
          frame::Cell::real(frame::numpy_quantile_linear(s, 0.75)),
          frame::Cell::real(s.back()),
          frame::Cell::real(frame::numpy_sum(v))};
}

bool contains(const frame::Cell& c, const char* part) {
  return c.kind == frame::Cell::Kind::kText && c.str().find(part) != std::string::npos;
}

const frame::Cell kNull;

// Column `name`'s cell r of `f` (NULL when the rank lacks the column, as in the concatenation).
const frame::Cell& cell_at(const frame::FrameColumn* c, size_t r) {
  return c ? c->cells[r] : kNull;
}

// Keys in order of first appearance, each with a T.
template <class T>
struct Ordered {
  std::unordered_map<frame::Cell, size_t, frame::CellKeyHash, frame::CellKeyEqual> at;
  std::vector<frame::Cell> keys;
  std::vector<T> values;
  // k's place in first-seen order (added now, with a T, when new).
  size_t index(const frame::Cell& k) {
    auto [it, added] = at.emplace(k, keys.size());
    if (added) {
      keys.push_back(k);
      values.emplace_back();
    }
    return it->second;
  }
  T& of(const frame::Cell& k) { return values[index(k)]; }
};

// A collective instance's row, kept with its group's rows until the walk is over: the instance's
// place among its group's (first-seen order), the row's duration and its place in the
// concatenation.
struct InstanceRow {
  uint32_t local = 0;
  double time = 0;
  uint64_t place = 0;
};

// A voted instance: its keys, the places of its slow rows (judge order) and its statistics.
struct Verdict {
  frame::Cell group, op;
  std::vector<uint64_t> slow;
  std::vector<frame::Cell> stats;
};

}  // namespace

std::vector<size_t> judge_slow_ranks(const std::vector<double>& times) {
  return times.size() <= kMaxDixon ? judge_dixon(times) : judge_three_sigma(times);
}

bool SlowRank::map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const {
  return map_profiler_query(paths, "slow_rank.communication_ops", kQuery,
                            {"COMMUNICATION_OP", "RANK_DEVICE_MAP", "STRING_IDS", "CANN_API"}, out,
                            diag, scan_communication_times);
}

// The reduce over the held or parked rows, walked rank by rank (throws when a parked frame cannot
// be read back).
static bool reduce_rows(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                        const std::string& dir_name, size_t rows_in_memory, io::Diagnostics& diag) {
  // Walk 1, rank by rank in rank order (the concatenation's row order): the collectives by group
  // then op name in order of first appearance, each row put aside with its group's.
  Ordered<uint32_t> groups;        // group name -> its number of instances
  CellPairIndex instances;         // (group name, op name)
  std::vector<uint32_t> local_of;  // per instance, its place among its group's
  std::vector<uint32_t> count_of;  // per instance, its rows
  RowsByGroup rows(0, sizeof(InstanceRow), 1, rows_in_memory);
  uint64_t place = 0;
  for_each_rank_frame(parts, "rows", [&](const frame::Frame& f) {
    const auto* group = frame::find_column(f, "groupName");
    const auto* op = frame::find_column(f, "opName");
    const auto* time = frame::find_column(f, "communication_time");
    for (size_t r = 0; r < f.rows(); ++r, ++place) {
      const frame::Cell& o = cell_at(op, r);
      if (contains(o, "send") || contains(o, "receive")) continue;
      const frame::Cell& g = cell_at(group, r);
      const auto gi = static_cast<uint32_t>(groups.index(g));
      const auto [k, fresh] = instances.find_or_add(g, o);
      if (fresh) {
        local_of.push_back(groups.values[gi]++);
        count_of.push_back(0);
      }
      ++count_of[k];
      const InstanceRow row{local_of[k], cell_at(time, r).num(), place};
      rows.add(gi, &row);
    }
  });
  if (!rows.problem().empty())
    diag.warn(out.cluster_output_dir, 0,
              "slow_rank: the collective rows were held in memory: " + rows.problem(),
              "free space in the temporary directory ($TMPDIR) saves the root's memory");
  // Group by group: a group whose op names occur unequally often is left out; the others'
  // instances are judged.
  std::vector<std::vector<uint32_t>> instances_of(groups.keys.size());
  for (uint32_t k = 0; k < instances.size(); ++k)
    instances_of[groups.at.at(instances.first(k))].push_back(k);
  std::vector<Verdict> verdicts;
  std::vector<uint64_t> wanted;
  for (uint32_t g = 0; g < groups.keys.size(); ++g) {
    const std::vector<uint32_t>& ks = instances_of[g];
    bool equal = true;
    for (uint32_t k : ks) equal = equal && count_of[k] == count_of[ks[0]];
    if (!equal && !groups.keys[g].is_null()) continue;
    std::vector<std::vector<double>> times(ks.size());
    std::vector<std::vector<uint64_t>> places(ks.size());
    for (size_t i = 0; i < ks.size(); ++i) {
      times[i].reserve(count_of[ks[i]]);
      places[i].reserve(count_of[ks[i]]);
    }
    rows.for_each_run<InstanceRow>(g, [&](std::span<const InstanceRow> run) {
      for (const InstanceRow& row : run) {
        times[row.local].push_back(row.time);
        places[row.local].push_back(row.place);
      }
    });
    for (size_t i = 0; i < ks.size(); ++i) {
      const auto slow = judge_slow_ranks(times[i]);
      if (slow.empty()) continue;
      Verdict v{groups.keys[g], instances.second(ks[i]), {}, series_stats(times[i])};
      for (size_t at : slow) v.slow.push_back(places[i][at]);
      wanted.insert(wanted.end(), v.slow.begin(), v.slow.end());
      verdicts.push_back(std::move(v));
    }
  }
  if (verdicts.empty()) return true;  // no slow rank: nothing written
  // Walk 2: the rank and start of the slow rows only.
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  std::unordered_map<uint64_t, std::pair<frame::Cell, frame::Cell>> slow_rows;
  place = 0;
  auto next = wanted.begin();
  for_each_rank_frame(parts, "rows", [&](const frame::Frame& f) {
    const auto* rank = frame::find_column(f, "rankId");
    const auto* start = frame::find_column(f, "startNs");
    for (; next != wanted.end() && *next < place + f.rows(); ++next) {
      const size_t r = static_cast<size_t>(*next - place);
      slow_rows[*next] = {cell_at(rank, r), cell_at(start, r)};
    }
    place += f.rows();
  });
  Ordered<int64_t> votes;  // rank -> its votes
  frame::Frame stats;
  for (const char* c : {"SlowRank", "OpName", "GroupName", "Timestamp", "Count", "MeanNs", "StdNs",
                        "MinNs", "Q1Ns", "MedianNs", "Q3Ns", "MaxNs", "SumNs"})
    stats.add(c);
  for (const Verdict& v : verdicts) {
    std::string names;
    int64_t first = 0;
    for (size_t k = 0; k < v.slow.size(); ++k) {
      const auto& [rank, start] = slow_rows.at(v.slow[k]);
      ++votes.of(rank);
      names += (k ? "," : "") + std::to_string(rank.i());
      first = k ? std::min(first, start.i()) : start.i();
    }
    std::vector<frame::Cell> row = {frame::Cell::text(names), v.op, v.group,
                                    frame::Cell::integer(first)};
    for (const frame::Cell& c : v.stats) row.push_back(c);
    for (size_t c = 0; c < row.size(); ++c) stats.columns[c].push_back(row[c]);
  }
  frame::Frame per_rank;
  auto& ids = per_rank.add("rankId");
  auto& counts = per_rank.add("slowAffectCount");
  per_rank.index_columns = 1;
  for (size_t k = 0; k < votes.keys.size(); ++k) {
    ids.push_back(votes.keys[k]);
    counts.push_back(frame::Cell::integer(votes.values[k]));
  }
  stats = frame::sort_by(stats, "Timestamp", true);
  return dump_recipe_frame(per_rank, out, dir_name, "rank_stats.csv", "SlowRank", diag) &&
         dump_recipe_frame(stats, out, dir_name, "slow_op_stats.csv", "SlowOpStats", diag);
}

bool SlowRank::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                      io::Diagnostics& diag) const {
  bool any = false;
  for (const RankPartial& p : parts) any = any || (p.used && has_frame(p, "rows"));
  if (!any) return true;
  try {
    return reduce_rows(parts, out, dir_name(), rows_in_memory_, diag);
  } catch (const std::runtime_error& e) {  // a parked frame not read back
    diag.error(out.cluster_output_dir, 0, std::string("slow_rank: ") + e.what(),
               "check the free space of the temporary directory ($TMPDIR)");
    return false;
  }
}

}  // namespace cs::recipes::slow_rank
