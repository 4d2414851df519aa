// Wait-ratio section of the cluster report: how much of each rank's communication is waiting.
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

std::vector<RankWait> rank_wait_ratios(const io::Table* t) {
  std::vector<RankWait> out;
  const ColumnRef rank(t, "rank"), wait(t, "wait_ms"), transit(t, "transit_ms"), sync(t, "sync_ms"),
      wr(t, "wait_ratio"), sr(t, "sync_ratio");
  if (!rank || (!(wait && transit) && !wr)) return out;
  struct Acc {
    double wait = 0, transit = 0, sync = 0, wr = 0, sr = 0;
    size_t n_wr = 0, n_sr = 0;
  };
  std::map<long long, Acc> acc;
  const auto val = [](double v) { return std::isfinite(v) ? v : 0.0; };
  for (size_t r = 0; r < rows(t); ++r) {
    const long long rk = rank.integer(r);
    if (rk < 0) continue;
    Acc& a = acc[rk];
    a.wait += val(wait.num(r));
    a.transit += val(transit.num(r));
    a.sync += val(sync.num(r));
    if (std::isfinite(wr.num(r))) a.wr += wr.num(r), ++a.n_wr;
    if (std::isfinite(sr.num(r))) a.sr += sr.num(r), ++a.n_sr;
  }
  const bool from_times = wait && transit;
  for (const auto& [rk, a] : acc) {
    RankWait w{rk, 0, 0};
    if (from_times) {
      w.wait_ratio = a.wait + a.transit > 1e-15 ? a.wait / (a.wait + a.transit) : 0;
      if (sync)
        w.sync_ratio = a.sync + a.transit > 1e-15 ? a.sync / (a.sync + a.transit) : 0;
      else if (a.n_sr)
        w.sync_ratio = a.sr / static_cast<double>(a.n_sr);
    } else {
      w.wait_ratio = a.n_wr ? a.wr / static_cast<double>(a.n_wr) : 0;
      w.sync_ratio = a.n_sr ? a.sr / static_cast<double>(a.n_sr) : 0;
    }
    out.push_back(w);
  }
  return out;
}

const io::Table* rank_wait_table(const ClusterReportInput& in) {
  return in.comm_rank_totals ? in.comm_rank_totals : in.comm_rank_summary;
}

void section_wait(HtmlOut& h, const ClusterContext& ctx) {
  begin_section(h, "wait", "Communication wait ratio per rank");
  if (!rank_wait_table(ctx.in)) {
    not_computed(h, "Communication time per rank");
    h.close();
    return;
  }
  const auto waits = rank_wait_ratios(rank_wait_table(ctx.in));
  if (waits.empty()) {
    note(h, "The communication summary has no rank and wait columns to draw.");
    h.close();
    return;
  }
  std::vector<RankPoint> pts;
  for (const auto& w : waits)
    pts.push_back({w.rank, {w.wait_ratio}, ctx.slow_ranks.count(w.rank) > 0});
  const bool bucketed = pts.size() > kMaxRankBars;
  const auto bars = bucket_ranks(pts, bucketed ? kBucketBars : kMaxRankBars);
  std::string how =
      "Wait time / (wait + transit time) over all of a rank's communication ops. In a collective "
      "every rank waits for the last to arrive, so a late rank waits little; but waiting least "
      "alone does not make a rank slow (a rank in a lightly loaded group, or at the end of a slow "
      "link, waits little too). The ranks judged slow, whose peers wait for them in every step, "
      "are marked.";
  if (bucketed)
    how += " Bars are buckets of " + std::to_string(bars.front().count) +
           " consecutive ranks: the bar is the mean, the whisker min to max, the cross-bar the "
           "median.";
  note(h, how);
  const std::vector<SeriesStyle> series = {{"Wait ratio", "s1"}};
  legend(h, series);
  RankChartOptions opt;
  opt.fmt = fmt_pct;
  opt.y_max = 1.0;
  opt.height = 220;
  opt.x_label = bucketed ? "ranks (buckets)" : "rank";
  opt.aria_label = "Communication wait ratio per rank";
  rank_bar_chart(h, bars, series, opt);

  // One story: the ranks the diagnosis judged slow first, then those that wait least; a rank that
  // waits least without being judged slow is said to be no late arrival, with the likely reason.
  std::vector<RankWait> sorted = waits;
  std::sort(sorted.begin(), sorted.end(), [&](const RankWait& a, const RankWait& b) {
    const bool sa = ctx.slow_ranks.count(a.rank) > 0, sb = ctx.slow_ranks.count(b.rank) > 0;
    if (sa != sb) return sa;
    return a.wait_ratio < b.wait_ratio || (a.wait_ratio == b.wait_ratio && a.rank < b.rank);
  });
  h.element("h3", "",
            ctx.slow_ranks.empty() ? "Ranks that wait least"
                                   : "Ranks judged slow, then those that wait least");
  const auto least =
      std::min_element(waits.begin(), waits.end(), [](const RankWait& a, const RankWait& b) {
        return a.wait_ratio < b.wait_ratio || (a.wait_ratio == b.wait_ratio && a.rank < b.rank);
      });
  if (ctx.slow_ranks.empty()) {
    note(h,
         "No rank is judged slow: these ranks wait least, but their peers do not wait for "
         "them more than chance and noise explain.");
  } else if (!ctx.slow_ranks.count(least->rank)) {
    std::string blamed;
    for (const long long r : ctx.slow_ranks)
      blamed += (blamed.empty() ? "" : ", ") + std::to_string(r);
    std::string why = "its peers do not wait for it in every step";
    for (const auto& [src, dst] : ctx.slow_links)
      if (src == least->rank || dst == least->rank) {
        why = "it sits at the end of the slow link " + std::to_string(src) + " \u2192 " +
              std::to_string(dst) + ", whose transfers keep it busy while its peers wait";
        break;
      }
    note(h, "Rank " + std::to_string(least->rank) + " waits least but is not judged slow: " + why +
                ". The diagnosis blames rank" + (ctx.slow_ranks.size() > 1 ? "s " : " ") + blamed +
                " (see Findings).");
  }
  h.open("table");
  table_head(h, {"#rank", "#wait ratio", "#synchronization ratio", "judged slow"});
  h.open("tbody");
  for (size_t i = 0; i < sorted.size() && i < 10; ++i) {
    const auto& w = sorted[i];
    const bool slow = ctx.slow_ranks.count(w.rank) > 0;
    h.open("tr", slow ? attr("class", "flag") : std::string());
    num_cell(h, std::to_string(w.rank));
    num_cell(h, fmt_pct(w.wait_ratio));
    num_cell(h, fmt_pct(w.sync_ratio));
    h.element("td", "", slow ? "yes" : "");
    h.close();
  }
  h.close();
  h.close();
  h.close();
}

}  // namespace cs::report
