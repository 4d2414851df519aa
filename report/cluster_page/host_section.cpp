// Host-side section of the cluster report: the device's Free time per rank broken down by cause
// (free_breakdown) and the host-heaviest operators (host_ops). See docs/host.md.
#include <algorithm>
#include <cmath>
#include <map>

#include "report/cluster_page/cluster_sections.h"
#include "report/display_format.h"
#include "report/rank_bars.h"
#include "report/report_page.h"
#include "report/svg_charts.h"
#include "report/table_view.h"

namespace cs::report {

namespace {

constexpr size_t kMaxHostOpRows = 30;
constexpr size_t kMaxFreeRows = 100;
const char* const kCauses[] = {"data_us", "compile_us",  "sync_us",
                               "gc_us",   "dispatch_us", "unattributed_us"};
constexpr size_t kNCauses = 6;

struct RankFree {
  long long rank = 0;
  double free = 0;
  double parts[kNCauses] = {};
  size_t steps = 0;
};

std::vector<RankFree> rank_free_means(const io::Table* t) {
  const ColumnRef rank(t, "rank"), fr(t, "free_us");
  ColumnRef cause[kNCauses];
  for (size_t c = 0; c < kNCauses; ++c) cause[c] = ColumnRef(t, kCauses[c]);
  std::map<long long, RankFree> acc;
  const auto val = [](double v) { return std::isfinite(v) ? v : 0.0; };
  for (size_t r = 0; r < rows(t); ++r) {
    RankFree& a = acc[rank.integer(r)];
    a.rank = rank.integer(r);
    a.free += val(fr.num(r));
    for (size_t c = 0; c < kNCauses; ++c) a.parts[c] += val(cause[c].num(r));
    ++a.steps;
  }
  std::vector<RankFree> out;
  for (auto& [rk, a] : acc) {
    const double n = static_cast<double>(std::max<size_t>(a.steps, 1));
    a.free /= n;
    for (double& p : a.parts) p /= n;
    out.push_back(a);
  }
  return out;
}

void free_per_rank(HtmlOut& h, const ClusterContext& ctx, const io::Table* t) {
  const auto per_rank = rank_free_means(t);
  if (per_rank.empty()) {
    note(h, "No rank has a Free time to break down.");
    return;
  }
  std::vector<RankPoint> pts;
  for (const auto& r : per_rank) {
    const double stalls = r.parts[0] + r.parts[1] + r.parts[2] + r.parts[3];
    pts.push_back({r.rank, {r.parts[4], stalls, r.parts[5]}, ctx.slow_ranks.count(r.rank) > 0});
  }
  const bool bucketed = pts.size() > kMaxRankBars;
  const auto bars = bucket_ranks(pts, bucketed ? kBucketBars : kMaxRankBars);
  note(h,
       "The device's Free time per rank (mean per step) by what the host was doing meanwhile: "
       "dispatch (the device waited for the host to launch its next task), host stalls (data "
       "loading, run-time compilation, synchronisation, garbage collection) and the unattributed "
       "rest. The parts add up to the producer's Free. Slow ranks are outlined in red.");
  const std::vector<SeriesStyle> series = {
      {"Dispatch", "s1"}, {"Data, compile, sync, GC", "s3"}, {"Unattributed", "s2"}};
  legend(h, series);
  RankChartOptions opt;
  opt.fmt = fmt_us;
  opt.x_label = bucketed ? "ranks (buckets)" : "rank";
  opt.aria_label = "Free time per rank split by host cause";
  rank_bar_chart(h, bars, series, opt);

  std::vector<RankFree> by_free = per_rank;
  std::stable_sort(by_free.begin(), by_free.end(),
                   [](const RankFree& a, const RankFree& b) { return a.free > b.free; });
  h.open("table");
  table_head(h,
             {"#rank", "#free", "#data", "#compile", "#sync", "#GC", "#dispatch", "#unattributed"});
  h.open("tbody");
  for (size_t i = 0; i < by_free.size() && i < kMaxFreeRows; ++i) {
    const RankFree& r = by_free[i];
    h.open("tr", ctx.slow_ranks.count(r.rank) ? attr("class", "flag") : std::string());
    num_cell(h, std::to_string(r.rank));
    num_cell(h, fmt_us(r.free));
    for (double p : r.parts) num_cell(h, fmt_us(p));
    h.close();
  }
  h.close();
  h.close();
  if (by_free.size() > kMaxFreeRows)
    note(h, "\u2026 and " + std::to_string(by_free.size() - kMaxFreeRows) +
                " more ranks: see free_breakdown.csv.");
}

void host_operators(HtmlOut& h, const io::Table* t) {
  if (rows(t) == 0) {
    note(h, "No host operators were read (no host timeline).");
    return;
  }
  const ColumnRef op(t, "operator"), calls(t, "calls"), self(t, "host_self_us"),
      dev(t, "device_self_us"), launches(t, "launches"), delay(t, "launch_delay_mean_us"),
      delay_max(t, "launch_delay_max_us"), bound(t, "host_bound"), ranks(t, "ranks");
  const double max_self = rows(t) > 0 ? self.num(0) : 0;
  note(h,
       "Operators by host self time summed over the ranks (their time minus their child "
       "operators'), with the device time of the tasks they launched and the delay from launch "
       "to the task's start. Host-bound operators (host time above the device time they launch) "
       "are drawn red.");
  h.open("table");
  table_head(h, {"#", "operator", "#ranks", "#calls", "#host self", "", "#device self", "#launches",
                 "#mean launch delay", "#max launch delay"});
  h.open("tbody");
  for (size_t r = 0; r < rows(t) && r < kMaxHostOpRows; ++r) {
    h.open("tr", bound.num(r) > 0 ? attr("class", "flag") : std::string());
    num_cell(h, std::to_string(r + 1));
    h.element("td", attr("class", "key"), op.str(r));
    num_cell(h, fmt_num(ranks.num(r), 0));
    num_cell(h, fmt_num(calls.num(r), 0));
    num_cell(h, fmt_us(self.num(r)));
    h.open("td");
    mini_bar(h, max_self > 0 ? self.num(r) / max_self : 0, "mb");
    h.close();
    num_cell(h, fmt_us(dev.num(r)));
    num_cell(h, fmt_num(launches.num(r), 0));
    num_cell(h, launches.num(r) > 0 ? fmt_us(delay.num(r)) : "\u2013");
    num_cell(h, launches.num(r) > 0 ? fmt_us(delay_max.num(r)) : "\u2013");
    h.close();
  }
  h.close();
  h.close();
  if (rows(t) > kMaxHostOpRows)
    note(h, "\u2026 and " + std::to_string(rows(t) - kMaxHostOpRows) + " more: see host_ops.csv.");
}

}  // namespace

void section_host(HtmlOut& h, const ClusterContext& ctx) {
  begin_section(h, "host", "Host side: why the device was free");
  if (!ctx.in.free_breakdown) {
    note(h, "The host side was not read in this run (it comes with -m all and -m diagnosis).");
    h.close();
    return;
  }
  free_per_rank(h, ctx, ctx.in.free_breakdown);
  h.element("h3", "", "Host-heaviest operators");
  host_operators(h, ctx.in.host_ops);
  host_drill_data(h, ctx);
  h.close();
}

}  // namespace cs::report
