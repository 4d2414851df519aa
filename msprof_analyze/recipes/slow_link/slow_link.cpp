#include "msprof_analyze/recipes/slow_link/slow_link.h"

#include <cmath>
#include <string>
#include <unordered_map>
#include <utility>

#include "frame/duration_stats.h"
#include "frame/frame_ops.h"
#include "frame/pandas_math.h"
#include "frame/pandas_sort.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"
#include "msprof_analyze/recipes/slow_link/slow_link_scan.h"

namespace cs::recipes::slow_link {

namespace {

// msprof-analyze's per-rank query (SlowLinkExport): durations in ns, the bytes an op moves from
// its element count and data type (NULL for a type not listed), no step range.
const char* kQuery =
    "SELECT si.value AS groupName, co.endNs - co.startNs AS communicationTime, "
    "sii.value AS opName, op.value AS opType, et.name AS dataType, "
    "CASE WHEN et.name = 'INT8' THEN 1 * co.count WHEN et.name = 'INT16' THEN 2 * co.count "
    "WHEN et.name = 'INT32' THEN 4 * co.count WHEN et.name = 'INT64' THEN 8 * co.count "
    "WHEN et.name = 'UINT64' THEN 8 * co.count WHEN et.name = 'UINT8' THEN 1 * co.count "
    "WHEN et.name = 'UINT16' THEN 2 * co.count WHEN et.name = 'UINT32' THEN 4 * co.count "
    "WHEN et.name = 'FP16' THEN 2 * co.count WHEN et.name = 'FP32' THEN 4 * co.count "
    "WHEN et.name = 'FP64' THEN 8 * co.count WHEN et.name = 'BFP16' THEN 2 * co.count "
    "WHEN et.name = 'INT128' THEN 16 * co.count END AS dataSize "
    "FROM COMMUNICATION_OP co CROSS JOIN STRING_IDS si ON co.groupName = si.id "
    "JOIN STRING_IDS sii ON co.opName = sii.id "
    "JOIN ENUM_HCCL_DATA_TYPE et ON co.dataType = et.id "
    "JOIN STRING_IDS op ON co.opType = op.id";

bool is_point_to_point(const frame::Cell& op) {
  const std::string& s = op.str();
  return s.find("send") != std::string::npos || s.find("receive") != std::string::npos;
}

// The key text of a group, as pandas formats its index values: an int as itself, a float as its
// repr (a data size column with NULLs is float), text as is.
std::string key_text(const frame::Cell& c) {
  if (c.kind == frame::Cell::Kind::kText) return c.str();
  if (c.kind == frame::Cell::Kind::kInt) return std::to_string(c.i());
  return frame::csv_cell(c, frame::Dtype::kFloat64);
}

}  // namespace

bool has_z_score_outlier(const std::vector<double>& values) {
  if (values.empty()) return false;
  const double n = static_cast<double>(values.size());
  const double mean = frame::numpy_sum(values) / n;
  std::vector<double> sq(values.size());
  for (size_t i = 0; i < values.size(); ++i) sq[i] = (values[i] - mean) * (values[i] - mean);
  const double sd = std::sqrt(frame::numpy_sum(sq) / n);
  if (sd == 0) return false;
  const double high = 3 * sd + mean, low = -3 * sd + mean;
  for (double v : values)
    if (v > high || v < low) return true;
  return false;
}

bool SlowLink::map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const {
  recipes::RankDb db(paths.profiler_db, diag);
  if (!db.ok()) return false;
  if (!tables_present(db, paths.profiler_db,
                      {"COMMUNICATION_OP", "STRING_IDS", "ENUM_HCCL_DATA_TYPE"}, diag))
    return false;
  // Answered by its scan (slow_link_scan.h) or by SQLite (answer_query).
  frame::Frame rows;
  if (!answer_query(
          "slow_link.communication_ops",
          [&] { return scan_slow_links(db.database(), kQuery, rows); },
          [&] { return db.query(kQuery, {}, rows, "COMMUNICATION_OP", diag); }))
    return false;
  if (rows.rows() == 0) {
    diag.warn(paths.profiler_db, 0, "no rows in COMMUNICATION_OP", "this rank adds nothing");
    return false;
  }
  frame::Frame f;  // rankId first, as msprof-analyze inserts it
  f.add("rankId").cells.assign(rows.rows(), frame::Cell::integer(paths.rank));
  for (auto& c : rows.columns) f.columns.push_back(std::move(c));
  out["rows"] = std::move(f);
  return true;
}

bool SlowLink::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                      io::Diagnostics& diag) const {
  const std::vector<const frame::Frame*> frames = used_frames(parts);
  if (frames.empty()) return true;
  if (out.export_type != ExportType::kDb) {
    diag.warn(out.cluster_output_dir, 0,
              "slow_link writes nothing for --export_type text (as msprof-analyze)",
              "run it with --export_type db for the SlowLinkSum and SlowLinkOps tables");
    return true;
  }
  frame::Frame all = frame::concat_frames(frames, frame::column_union(frames));
  const size_t n = all.rows();
  // Each collective instance (group, op name): its shortest duration and its number of ranks.
  auto& transmit = all.add("transmitTime");
  auto& related = all.add("relatedRanks");
  transmit.cells.assign(n, frame::Cell::integer(0));
  related.cells.assign(n, frame::Cell::integer(0));
  {
    const auto& group = frame::find_column(all, "groupName")->cells;
    const auto& op = frame::find_column(all, "opName")->cells;
    const auto& time = frame::find_column(all, "communicationTime")->cells;
    std::unordered_map<std::string, std::vector<size_t>> instances;
    for (size_t r = 0; r < n; ++r)
      if (!is_point_to_point(op[r]))
        instances[frame::cell_key(group[r]) + '\x1f' + frame::cell_key(op[r])].push_back(r);
    for (const auto& [_, rows] : instances) {
      int64_t shortest = time[rows.front()].i();
      for (size_t r : rows) shortest = std::min(shortest, time[r].i());
      for (size_t r : rows) {
        transmit.cells[r] = frame::Cell::integer(shortest);
        related.cells[r] = frame::Cell::integer(static_cast<int64_t>(rows.size()));
      }
    }
  }
  // Groups (op type, data size, ranks) with a transmit-time outlier keep all their rows.
  const std::vector<std::string> keys = {"opType", "dataSize", "relatedRanks"};
  std::vector<size_t> kept;
  for (const auto& g : frame::group_rows(all, keys, true)) {
    std::vector<double> t;
    for (size_t r : g) t.push_back(transmit.cells[r].num());
    if (has_z_score_outlier(t)) kept.insert(kept.end(), g.begin(), g.end());
  }
  if (kept.empty()) return true;  // nothing slow: nothing written
  frame::Frame ops = frame::take(all, kept);
  // A data size column with a NULL anywhere is float in pandas (REAL, "1024.0" in the names).
  bool any_null = false;
  for (const frame::Cell& c : frame::find_column(all, "dataSize")->cells)
    any_null = any_null || c.is_null();
  if (any_null)
    for (frame::Cell& c : frame::find_column(ops, "dataSize")->cells)
      c = frame::Cell::real(c.num());
  frame::Frame stats = frame::describe_duration(ops, keys, "transmitTime");
  // Min, max and sum of an int column stay ints; the ranks of the (first) longest and shortest.
  const auto& t = frame::find_column(ops, "transmitTime")->cells;
  const auto& rank = frame::find_column(ops, "rankId")->cells;
  frame::Frame sum;
  auto& name = sum.add("opTypeRelatedRanksDataSize");
  for (size_t c = 3; c < stats.columns.size(); ++c) sum.columns.push_back(stats.columns[c]);
  auto& ratio = sum.add("offsetRatio");
  auto& max_rank = sum.add("maxRank");
  auto& min_rank = sum.add("minRank");
  const auto groups = frame::group_rows(ops, keys, true);
  for (size_t g = 0; g < groups.size(); ++g) {
    size_t at_max = groups[g].front(), at_min = at_max;
    int64_t total = 0;
    for (size_t r : groups[g]) {
      if (t[r].i() > t[at_max].i()) at_max = r;
      if (t[r].i() < t[at_min].i()) at_min = r;
      total += t[r].i();
    }
    name.push_back(frame::Cell::text(key_text(stats.columns[0].cells[g]) +
                                     key_text(stats.columns[2].cells[g]) + "_" +
                                     key_text(stats.columns[1].cells[g])));
    frame::find_column(sum, "MinNs")->cells[g] = t[at_min];
    frame::find_column(sum, "MaxNs")->cells[g] = t[at_max];
    frame::find_column(sum, "SumNs")->cells[g] = frame::Cell::integer(total);
    const double mean = frame::find_column(sum, "MeanNs")->cells[g].num();
    const double sd = frame::find_column(sum, "StdNs")->cells[g].num();
    const double far = std::fmax(std::fabs(static_cast<double>(t[at_max].i()) - mean),
                                 std::fabs(static_cast<double>(t[at_min].i()) - mean));
    ratio.push_back(frame::Cell::real(far / sd));
    max_rank.push_back(rank[at_max]);
    min_rank.push_back(rank[at_min]);
  }
  // By offset ratio, largest first (NaN last), the first top_num.
  std::vector<size_t> valid, order;
  for (size_t r = 0; r < sum.rows(); ++r)
    if (!std::isnan(ratio.cells[r].num())) valid.push_back(r);
  for (size_t i : frame::pandas_sort_order(
           valid.size(),
           [&](size_t a, size_t b) {
             return ratio.cells[valid[a]].num() < ratio.cells[valid[b]].num();
           },
           false))
    order.push_back(valid[i]);
  for (size_t r = 0; r < sum.rows(); ++r)
    if (std::isnan(ratio.cells[r].num())) order.push_back(r);
  const size_t top = static_cast<size_t>(out.top_num > 0 ? out.top_num : 15);
  if (order.size() > top) order.resize(top);
  return dump_recipe_frame(frame::take(sum, order), out, dir_name(), "", "SlowLinkSum", diag) &&
         dump_recipe_frame(ops, out, dir_name(), "", "SlowLinkOps", diag);
}

}  // namespace cs::recipes::slow_link
