#include "msprof_analyze/recipes/mstx_sum/mstx_sum.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "frame/duration_stats.h"
#include "frame/frame_ops.h"
#include "frame/pandas_math.h"
#include "frame/pandas_sort.h"
#include "msprof_analyze/recipes/mstx_sum/mstx_annotations.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"

namespace cs::recipes::mstx_sum {

namespace {

// The three durations an annotation has, as (column, ratio column, stats table, stats file).
struct Measure {
  const char *column, *ratio, *table, *file;
};
constexpr Measure kMeasures[] = {
    {"FrameworkDurationNs", "FrameworkDurationRatio(%)", "MSTXAllFrameworkStats",
     "all_fwk_stats.csv"},
    {"CannDurationNs", "CannDurationRatio(%)", "MSTXAllCannStats", "all_cann_stats.csv"},
    {"DeviceDurationNs", "DeviceDurationRatio(%)", "MSTXAllDeviceStats", "all_device_stats.csv"},
};

double num_or_nan(const frame::Cell& c) {
  return c.is_number() ? c.num() : std::nan("");
}

// calculate_ratio: each row's share (%) of its rank's total of `column` (0 where the total is 0).
frame::FrameColumn ratio_column(const frame::Frame& f, const Measure& m) {
  const frame::FrameColumn* v = frame::find_column(f, m.column);
  const frame::FrameColumn* rank = frame::find_column(f, "Rank");
  std::map<int64_t, std::vector<double>> per_rank;
  for (size_t r = 0; r < f.rows(); ++r) {
    const double x = num_or_nan(v->cells[r]);
    if (!std::isnan(x)) per_rank[rank->cells[r].i()].push_back(x);
  }
  std::map<int64_t, double> total;
  for (const auto& [k, xs] : per_rank) total[k] = frame::kahan_sum(xs);
  frame::FrameColumn out{m.ratio, {}, false};
  for (size_t r = 0; r < f.rows(); ++r) {
    const double t = total.count(rank->cells[r].i()) ? total[rank->cells[r].i()] : 0.0;
    out.push_back(frame::Cell::real(t != 0 ? num_or_nan(v->cells[r]) / t * 100.0 : 0.0));
  }
  return out;
}

// sort_values(column, ascending=False): pandas' nargsort, NaN last.
std::vector<size_t> descending_nan_last(const frame::FrameColumn& c) {
  std::vector<size_t> valid, nans;
  for (size_t r = 0; r < c.cells.size(); ++r)
    (std::isnan(num_or_nan(c.cells[r])) ? nans : valid).push_back(r);
  const auto order = frame::pandas_sort_order(
      valid.size(),
      [&](size_t a, size_t b) { return c.cells[valid[a]].num() < c.cells[valid[b]].num(); }, false);
  std::vector<size_t> rows;
  for (size_t i : order) rows.push_back(valid[i]);
  rows.insert(rows.end(), nans.begin(), nans.end());
  return rows;
}

// The mark_stats table: the ranks' rows with the three ratio columns, sorted by CANN share.
frame::Frame mark_stats(const frame::Frame& all) {
  frame::Frame f;
  f.columns.push_back(*frame::find_column(all, "Name"));
  for (const auto& m : kMeasures) {
    f.columns.push_back(*frame::find_column(all, m.column));
    f.columns.push_back(ratio_column(all, m));
  }
  f.columns.push_back(*frame::find_column(all, "Rank"));
  f.columns.push_back(*frame::find_column(all, "StepId"));
  return frame::take(f, descending_nan_last(*frame::find_column(f, "CannDurationRatio(%)")));
}

// Series.describe() of the values (as pandas 1.5 with bottleneck computes it) and the groupby
// sum: Count, Mean, Std, Min, Q1, Median, Q3, Max, Sum.
std::vector<double> describe_series(const std::vector<double>& values) {
  std::vector<double> sorted;
  for (double x : values)
    if (!std::isnan(x)) sorted.push_back(x);
  const double nan = std::nan("");
  const double kahan = frame::kahan_sum(sorted);
  std::sort(sorted.begin(), sorted.end());
  return {static_cast<double>(sorted.size()),
          frame::series_mean(values),
          frame::series_std(values),
          sorted.empty() ? nan : sorted.front(),
          frame::numpy_quantile_linear(sorted, 0.25),
          frame::numpy_quantile_linear(sorted, 0.5),
          frame::numpy_quantile_linear(sorted, 0.75),
          sorted.empty() ? nan : sorted.back(),
          kahan};
}

// The rank of the first row holding the extreme (idxmax/idxmin, NaN skipped); 0 when the values
// are all 0, NULL when all are NaN.
frame::Cell extreme_rank(const std::vector<double>& v, const std::vector<frame::Cell>& ranks,
                         bool max) {
  std::optional<size_t> at;
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isnan(v[i]) && (!at || (max ? v[i] > v[*at] : v[i] < v[*at]))) at = i;
  return at ? ranks[*at] : frame::Cell::null();
}

// describe_duration of `column` per name, for the rows of one step, sorted by Dispersion(%).
frame::Frame step_stats(const frame::Frame& step, const char* column, const frame::Cell& step_id) {
  frame::Frame out;
  auto& name = out.add("Name");
  out.index_columns = 1;
  static const char* kCols[] = {"Count", "MeanNs",        "StdNs", "MinNs", "MinRank",
                                "Q1Ns",  "MedianNs",      "Q3Ns",  "MaxNs", "MaxRank",
                                "SumNs", "Dispersion(%)", "StepId"};
  for (const char* c : kCols) out.add(c);
  auto col = [&](size_t i) -> frame::FrameColumn& { return out.columns[i + 1]; };
  const frame::FrameColumn* v = frame::find_column(step, column);
  const frame::FrameColumn* rank = frame::find_column(step, "Rank");
  for (const auto& g : frame::group_rows(step, {"Name"}, true)) {
    std::vector<double> values;
    std::vector<frame::Cell> ranks;
    for (size_t r : g) {
      values.push_back(num_or_nan(v->cells[r]));
      ranks.push_back(rank->cells[r]);
    }
    const auto s = describe_series(values);  // Count Mean Std Min Q1 Median Q3 Max Sum
    const double mx = s[7], mn = s[3];
    const bool zeros = mx == 0 && mn == 0;
    double dispersion = (mx - s[6]) / s[8];
    if (std::isnan(dispersion)) dispersion = 0;
    name.push_back(frame::find_column(step, "Name")->cells[g.front()]);
    for (size_t i : {0, 1, 2, 3}) col(i).push_back(frame::Cell::real(s[i]));
    col(4).push_back(zeros ? frame::Cell::integer(0) : extreme_rank(values, ranks, false));
    for (size_t i : {4, 5, 6, 7}) col(i + 1).push_back(frame::Cell::real(s[i]));
    col(9).push_back(zeros ? frame::Cell::integer(0) : extreme_rank(values, ranks, true));
    col(10).push_back(frame::Cell::real(s[8]));
    col(11).push_back(frame::Cell::real(dispersion * 100.0));
    col(12).push_back(step_id);
  }
  return frame::take(out, descending_nan_last(*frame::find_column(out, "Dispersion(%)")));
}

// mstx_sum's text export is in milliseconds (its UNIT "Ms", FACTOR 1e6).
bool write(const frame::Frame& f, const RecipeOutput& out, const std::string& dir,
           const std::string& file, const std::string& table, io::Diagnostics& diag) {
  return dump_recipe_frame(f, out, dir, file, table, diag, "Ms", 1e6);
}

}  // namespace

bool MstxSum::map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const {
  recipes::RankDb db(paths.profiler_db, diag);
  if (!db.ok()) return false;
  if (!tables_present(db, paths.profiler_db, {"MSTX_EVENTS", "STRING_IDS"}, diag,
                      "this rank is skipped (it has no mstx data)"))
    return false;
  std::vector<MstxAnnotation> found;
  if (!read_mstx_annotations(db, found, diag)) return false;
  if (found.empty()) {
    diag.warn(paths.profiler_db, 0, "no mstx marks and no ranges tied to a device task",
              "this rank adds nothing (host-only ranges are left out, as msprof-analyze does)");
    return false;
  }
  frame::Frame rows;
  auto& name = rows.add("Name");
  auto& fwk = rows.add("FrameworkDurationNs");
  auto& cann = rows.add("CannDurationNs");
  auto& device = rows.add("DeviceDurationNs");
  auto& rank = rows.add("Rank");
  auto& step = rows.add("StepId");
  for (const auto& a : found) {
    name.push_back(frame::Cell::text(a.name));
    fwk.push_back(frame::Cell::real(a.framework_ns));
    cann.push_back(frame::Cell::real(a.cann_ns));
    device.push_back(frame::Cell::real(a.device_ns));
    rank.push_back(frame::Cell::integer(paths.rank));
    step.push_back(frame::Cell::integer(a.step_id));
  }
  out["rows"] = std::move(rows);
  return true;
}

bool MstxSum::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                     io::Diagnostics& diag) const {
  const std::vector<const frame::Frame*> frames = used_frames(parts);
  if (frames.empty()) return true;
  const frame::Frame marks = mark_stats(frame::concat_frames(frames, frame::column_union(frames)));
  // Per measure, the steps' tables one after another (pd.concat over the steps).
  std::vector<std::vector<frame::Frame>> per_step(std::size(kMeasures));
  for (const auto& g : frame::group_rows(marks, {"StepId"}, true)) {
    const frame::Frame step = frame::take(marks, g);
    const frame::Cell& id = frame::find_column(step, "StepId")->cells.front();
    for (size_t m = 0; m < per_step.size(); ++m)
      per_step[m].push_back(step_stats(step, kMeasures[m].column, id));
  }
  std::vector<frame::Frame> stats;
  for (const auto& steps : per_step) {
    std::vector<const frame::Frame*> parts;
    for (const auto& f : steps) parts.push_back(&f);
    stats.push_back(frame::concat_frames(parts, frame::column_union(parts)));
    stats.back().index_columns = 1;  // Name
  }
  const std::string dir = dir_name();
  if (out.export_type == ExportType::kDb) {
    frame::Frame indexed;
    auto& index = indexed.add("index");
    for (size_t r = 0; r < marks.rows(); ++r)
      index.push_back(frame::Cell::integer(static_cast<int64_t>(r)));
    for (const auto& c : marks.columns) indexed.columns.push_back(c);
    indexed.index_columns = 1;
    if (!write(indexed, out, dir, "", "MSTXMarkStats", diag)) return false;
  } else if (!write(marks, out, dir, "mark_stats.csv", "", diag)) {
    return false;
  }
  for (size_t m = 0; m < stats.size(); ++m)
    if (!write(stats[m], out, dir, kMeasures[m].file, kMeasures[m].table, diag)) return false;
  return true;
}

}  // namespace cs::recipes::mstx_sum
