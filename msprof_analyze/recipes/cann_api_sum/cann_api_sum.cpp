#include "msprof_analyze/recipes/cann_api_sum/cann_api_sum.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "frame/duration_stats.h"
#include "frame/frame_ops.h"
#include "frame/numpy_aggregates.h"
#include "frame/pandas_math.h"
#include "msprof_analyze/recipes/frame_writers.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"

namespace cs::recipes::cann_api_sum {

namespace {

const char* kQuery = R"(
WITH
    summary as (
        SELECT
            name,
            sum(endNs - startNs) AS duration,
            count (*) AS num,
            avg(endNs - startNs) AS avg_duration,
            min(endNs - startNs) AS min_duration,
            median(endNs - startNs) AS med_duration,
            max(endNs - startNs) AS max_duration,
            stdev(endNs - startNs) AS stdev_duration,
            lower_quartile(endNs - startNs) AS lower_quartile_duration,
            upper_quartile(endNs - startNs) AS upper_quartile_duration
        FROM
            CANN_API
        WHERE CANN_API.startNs >= ? and CANN_API.startNs <= ?
        GROUP BY name
    ),
    totals AS (
        SELECT sum(duration) AS total
        FROM summary
    )
SELECT
    ids.value AS "name",
    round(summary.duration * 100.0 / (SELECT total FROM totals), 2) AS "durationRatio",
    summary.duration AS "totalTimeNs",
    summary.num AS "totalCount",
    round(summary.avg_duration, 1) AS "averageNs",
    round(summary.min_duration, 1) AS "minNs",
    round(summary.lower_quartile_duration, 1) AS "Q1Ns",
    round(summary.med_duration, 1) AS "medNs",
    round(summary.upper_quartile_duration, 1) AS "Q3Ns",
    round(summary.max_duration, 1) AS "maxNs",
    round(summary.stdev_duration, 1) AS "stdev"
FROM
    summary
LEFT JOIN
    STRING_IDS AS ids
    ON ids.id = summary.name
ORDER BY 2 DESC;
)";

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2] + v[n / 2 - 1]) / 2.0;
}

frame::Cell round1(const frame::Cell& c) {
  if (c.kind != frame::Cell::Kind::kReal) return c;
  return frame::Cell::real(frame::numpy_round(c.num(), 1));
}

}  // namespace

bool CannApiSum::map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const {
  recipes::RankDb db(paths.profiler_db, diag);
  if (!db.ok()) return false;
  if (!tables_present(db, paths.profiler_db, {"CANN_API", "STRING_IDS"}, diag,
                      "this rank is skipped (it has no CANN API data)"))
    return false;
  if (!frame::register_numpy_aggregates(db.handle())) {
    diag.error(paths.profiler_db, 0, "cannot register the statistics functions",
               "report this as a bug");
    return false;
  }
  frame::Frame rows;
  if (!db.query(kQuery, {0, std::numeric_limits<int64_t>::max()}, rows, "CANN_API", diag))
    return false;
  if (rows.rows() == 0) return false;
  frame::assign(rows, "rank", frame::Cell::integer(paths.rank));
  out["rows"] = std::move(rows);
  return true;
}

bool CannApiSum::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                        io::Diagnostics& diag) const {
  const std::vector<const frame::Frame*> frames = used_frames(parts);
  if (frames.empty()) return true;
  const frame::Frame ranks = frame::concat_frames(frames, frame::column_union(frames));
  auto col = [&](const char* n) -> const frame::FrameColumn& {
    return *frame::find_column(ranks, n);
  };
  const auto groups = frame::group_rows(ranks, {"name"}, true);
  const frame::Dtype total_t = col("totalTimeNs").dtype(), count_t = col("totalCount").dtype();
  std::vector<frame::Cell> totals;
  double grand = 0;
  for (const auto& g : groups) {
    totals.push_back(frame::group_sum(col("totalTimeNs"), total_t, g));
    grand += totals.back().num();
  }
  frame::Frame res;
  auto& name = res.add("name");
  auto& ratio = res.add("timeRatio");
  auto& total = res.add("totalTimeNs");
  auto& count = res.add("totalCount");
  auto& average = res.add("averageNs");
  auto& q1 = res.add("Q1Ns");
  auto& med = res.add("medNs");
  auto& q3 = res.add("Q3Ns");
  auto& mn = res.add("minNs");
  auto& mx = res.add("maxNs");
  auto& sd = res.add("stdev");
  auto& min_rank = res.add("minRank");
  auto& max_rank = res.add("maxRank");
  res.index_columns = 1;
  for (size_t k = 0; k < groups.size(); ++k) {
    const auto& g = groups[k];
    auto values = [&](const char* n) {
      std::vector<double> v;
      for (size_t r : g) v.push_back(col(n).cells[r].num());
      return v;
    };
    name.push_back(col("name").cells[g.front()]);
    ratio.push_back(frame::Cell::real(grand != 0 ? totals[k].num() / grand * 100.0 : 0.0));
    total.push_back(totals[k]);
    const frame::Cell n = frame::group_sum(col("totalCount"), count_t, g);
    count.push_back(n);
    const double avg = totals[k].num() / n.num();
    average.push_back(frame::Cell::real(avg));
    const auto q1v = values("Q1Ns"), medv = values("medNs"), q3v = values("Q3Ns"),
               minv = values("minNs"), maxv = values("maxNs"), sdv = values("stdev"),
               avgv = values("averageNs"), cntv = values("totalCount");
    const double lo = *std::min_element(minv.begin(), minv.end());
    const double hi = *std::max_element(maxv.begin(), maxv.end());
    q1.push_back(frame::Cell::real(*std::min_element(q1v.begin(), q1v.end())));
    med.push_back(frame::Cell::real(median_of(medv)));
    q3.push_back(frame::Cell::real(*std::max_element(q3v.begin(), q3v.end())));
    mn.push_back(frame::Cell::real(lo));
    mx.push_back(frame::Cell::real(hi));
    // utils.stdev: pooled from the ranks' counts, stdevs and means.
    if (g.size() <= 1) {
      sd.push_back(col("stdev").cells[g.front()]);
    } else {
      double var_sum = 0, dev_sum = 0;
      for (size_t i = 0; i < g.size(); ++i) {
        var_sum += (cntv[i] - 1) * (sdv[i] * sdv[i]);
        const double dev = avgv[i] - avg;
        dev_sum += cntv[i] * (dev * dev);
      }
      const double instance = n.num();
      sd.push_back(frame::Cell::real(
          instance - 1 != 0 ? std::sqrt((var_sum + dev_sum) / (instance - 1)) : 0.0));
    }
    std::string at_min, at_max;
    for (size_t i = 0; i < g.size(); ++i) {
      const std::string r = std::to_string(col("rank").cells[g[i]].i());
      if (minv[i] == lo) at_min += (at_min.empty() ? "" : ", ") + r;
      if (maxv[i] == hi) at_max += (at_max.empty() ? "" : ", ") + r;
    }
    min_rank.push_back(frame::Cell::text(at_min));
    max_rank.push_back(frame::Cell::text(at_max));
  }
  for (size_t c = 1; c < res.columns.size(); ++c)
    for (auto& cell : res.columns[c].cells) cell = round1(cell);
  res = frame::sort_by(res, "totalTimeNs", false);
  return dump_recipe_frame(ranks, out, dir_name(), "rank_stats.csv", "CannApiSumRank", diag) &&
         dump_recipe_frame(res, out, dir_name(), "all_stats.csv", "CannApiSum", diag);
}

}  // namespace cs::recipes::cann_api_sum
