// Step-time section of the cluster report: per-rank stacked bars of the step-trace split.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "report/cluster_page/cluster_sections.h"
#include "report/display_format.h"
#include "report/rank_bars.h"
#include "report/report_page.h"
#include "report/svg_charts.h"
#include "report/table_view.h"

namespace cs::report {

std::vector<RankSteps> rank_step_means(const io::Table* t, size_t* steps_out) {
  std::vector<RankSteps> out;
  if (steps_out) *steps_out = 0;
  const ColumnRef rank(t, "rank"), step(t, "step"), comp(t, "computing_us"),
      comm(t, "comm_not_overlapped_us"), fr(t, "free_us");
  if (!rank) return out;
  struct Acc {
    double c = 0, m = 0, f = 0;
    size_t n = 0;
  };
  std::map<long long, Acc> acc;
  std::set<std::string> steps;
  const auto val = [](double v) { return std::isfinite(v) ? v : 0.0; };
  for (size_t r = 0; r < rows(t); ++r) {
    const long long rk = rank.integer(r);
    if (rk < 0) continue;
    Acc& a = acc[rk];
    a.c += val(comp.num(r));
    a.m += val(comm.num(r));
    a.f += val(fr.num(r));
    ++a.n;
    steps.insert(step.str(r));
  }
  for (const auto& [rk, a] : acc) {
    const double n = static_cast<double>(std::max<size_t>(a.n, 1));
    out.push_back({rk, a.c / n, a.m / n, a.f / n});
  }
  if (steps_out) *steps_out = steps.size();
  return out;
}

void section_step_trace(HtmlOut& h, const ClusterContext& ctx) {
  begin_section(h, "steps", "Step time per rank");
  size_t steps = 0;
  const auto per_rank = rank_step_means(ctx.in.step_trace, &steps);
  if (!ctx.in.step_trace) {
    not_computed(h, "Step trace");
    h.close();
    return;
  }
  if (per_rank.empty()) {
    note(h, "The step trace has no rows with a rank.");
    h.close();
    return;
  }
  std::vector<RankPoint> pts;
  pts.reserve(per_rank.size());
  for (const auto& r : per_rank)
    pts.push_back({r.rank, {r.computing, r.comm, r.free}, ctx.slow_ranks.count(r.rank) > 0});
  const bool bucketed = pts.size() > kMaxRankBars;
  const auto bars = bucket_ranks(pts, bucketed ? kBucketBars : kMaxRankBars);
  std::string how = "Mean per step over " + std::to_string(steps) +
                    (steps == 1 ? " step" : " steps") + ", " + std::to_string(per_rank.size()) +
                    " ranks.";
  if (bucketed)
    how += " Each bar is a bucket of " + std::to_string(bars.front().count) +
           " consecutive ranks: the stack shows the bucket's mean split, the black whisker the "
           "min and max step time of its ranks and the cross-bar the median.";
  how += " Slow ranks are outlined in red.";
  note(h, how);
  const std::vector<SeriesStyle> series = {
      {"Computing", "s0"}, {"Communication (not overlapped)", "s1"}, {"Free", "s2"}};
  legend(h, series);
  RankChartOptions opt;
  opt.fmt = fmt_us;
  opt.x_label = bucketed ? "ranks (buckets)" : "rank";
  opt.aria_label = "Step time per rank split into computing, communication and free time";
  rank_bar_chart(h, bars, series, opt);

  // Outliers: the slowest ranks and every slow rank, as a table.
  std::vector<RankSteps> sorted = per_rank;
  std::sort(sorted.begin(), sorted.end(), [](const RankSteps& a, const RankSteps& b) {
    return a.total() > b.total() || (a.total() == b.total() && a.rank < b.rank);
  });
  double mean = 0;
  for (const auto& r : per_rank) mean += r.total();
  mean /= static_cast<double>(per_rank.size());
  // The ranks judged slow first (a slow rank waits least, so its step is often not the longest),
  // then the longest steps.
  std::vector<RankSteps> listed;
  for (const auto& r : sorted)
    if (ctx.slow_ranks.count(r.rank) && listed.size() < 30) listed.push_back(r);
  for (size_t i = 0, n = listed.size(); i < sorted.size() && listed.size() < n + 10; ++i)
    if (!ctx.slow_ranks.count(sorted[i].rank)) listed.push_back(sorted[i]);
  h.element(
      "h3", "",
      ctx.slow_ranks.empty() ? "Longest step times" : "Slow ranks, then the longest step times");
  h.open("table");
  table_head(h, {"#rank", "#step time", "#vs. mean", "#computing",
                 "#communication (not overlapped)", "#free", "judged slow"});
  h.open("tbody");
  for (const auto& r : listed) {
    const bool slow = ctx.slow_ranks.count(r.rank) > 0;
    h.open("tr", slow ? attr("class", "flag") : std::string());
    num_cell(h, std::to_string(r.rank));
    num_cell(h, fmt_us(r.total()));
    num_cell(h, mean > 0 ? (r.total() >= mean ? "+" : "") + fmt_pct(r.total() / mean - 1) : "");
    num_cell(h, fmt_us(r.computing));
    num_cell(h, fmt_us(r.comm));
    num_cell(h, fmt_us(r.free));
    h.element("td", "", slow ? "yes" : "");
    h.close();
  }
  h.close();
  h.close();
  h.close();  // section
}

}  // namespace cs::report
