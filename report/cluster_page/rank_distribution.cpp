// Every rank at full resolution: sorted distributions of Computing, step time and wait ratio, one
// point per rank whatever the rank count, the ranks judged slow marked and labelled. A slow rank
// stands out as the end of a curve instead of being averaged into a bucket.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

#include "report/cluster_page/cluster_sections.h"
#include "report/display_format.h"
#include "report/report_page.h"
#include "report/svg_charts.h"

namespace cs::report {

namespace {

struct Point {
  long long rank;
  double v;
};

constexpr double kChartW = 400, kChartH = 190, kLeft = 64, kRight = 12, kTop = 14, kBottom = 34;
constexpr size_t kMaxLabels = 6;

// One panel: the values sorted ascending as a polyline, the slow ranks (and, when none, the
// highest point) as red dots with "rank N" labels; every dot opens the rank's drill-down.
void panel(HtmlOut& h, const std::string& title, std::vector<Point> pts,
           const std::set<long long>& flagged, const std::function<std::string(double)>& fmt) {
  std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) {
    return a.v < b.v || (a.v == b.v && a.rank < b.rank);
  });
  double lo = pts.front().v, hi = pts.back().v;
  if (!(hi > lo)) hi = lo + (lo != 0 ? std::fabs(lo) * 0.01 : 1);
  const double pad = (hi - lo) * 0.08;
  lo = std::max(0.0, lo - pad);
  hi += pad;
  const double pw = kChartW - kLeft - kRight, ph = kChartH - kTop - kBottom;
  const double n1 = static_cast<double>(std::max<size_t>(pts.size() - 1, 1));
  const auto x_of = [&](size_t i) { return kLeft + pw * static_cast<double>(i) / n1; };
  const auto y_of = [&](double v) { return kTop + ph - (v - lo) / (hi - lo) * ph; };
  h.open("figure");
  h.open("svg", attr("class", "chart dist") + attr("viewBox", "0 0 400 190") +
                    attr("width", kChartW) + attr("height", kChartH) + attr("role", "img") +
                    attr("aria-label", title + ", every rank sorted"));
  for (int i = 0; i <= 3; ++i) {
    const double v = lo + (hi - lo) * i / 3.0, y = y_of(v);
    h.empty("line", attr("class", "grid") + attr("x1", kLeft) + attr("x2", kLeft + pw) +
                        attr("y1", y) + attr("y2", y));
    h.element("text", attr("x", kLeft - 5) + attr("y", y + 3) + attr("text-anchor", "end"), fmt(v));
  }
  std::string path;
  path.reserve(pts.size() * 14);
  char buf[48];
  // Sorted values: within one pixel column the first and last point are its extremes, so two
  // points a column draw the same curve as every point (8,192 ranks: 600 points, not 8,192).
  for (size_t i = 0; i < pts.size(); ++i) {
    const bool keep = i == 0 || i + 1 == pts.size() ||
                      std::lround(x_of(i - 1)) != std::lround(x_of(i)) ||
                      std::lround(x_of(i + 1)) != std::lround(x_of(i));
    if (!keep) continue;
    std::snprintf(buf, sizeof buf, "%s%.1f,%.1f", path.empty() ? "" : " ", x_of(i), y_of(pts[i].v));
    path += buf;
  }
  h.empty("polyline", attr("class", "dline") + attr("points", path));
  h.element("text",
            attr("class", "axl") + attr("x", kLeft + pw / 2) + attr("y", kChartH - 6) +
                attr("text-anchor", "middle"),
            std::to_string(pts.size()) + " ranks, sorted");
  std::vector<size_t> marks;
  for (size_t i = 0; i < pts.size() && marks.size() < kMaxLabels; ++i)
    if (flagged.count(pts[i].rank)) marks.push_back(i);
  if (marks.empty()) marks.push_back(pts.size() - 1);
  for (const size_t i : marks) {
    const double x = x_of(i), y = y_of(pts[i].v);
    const std::string rk = std::to_string(pts[i].rank);
    h.open("g", attr("data-rank", rk) + attr("class", flagged.count(pts[i].rank) ? "fl" : "hi"));
    h.element("title", "", "Rank " + rk + ": " + fmt(pts[i].v));
    h.empty("circle", attr("cx", x) + attr("cy", y) + attr("r", 4));
    const bool right_half = x > kLeft + pw * 0.6;
    h.element("text",
              attr("x", right_half ? x - 7 : x + 7) + attr("y", std::max(kTop + 8, y - 4)) +
                  attr("text-anchor", right_half ? "end" : "start"),
              "rank " + rk + " " + fmt(pts[i].v));
    h.close();
  }
  h.close();  // svg
  h.element("figcaption", "", title);
  h.close();
}

}  // namespace

void section_distribution(HtmlOut& h, const ClusterContext& ctx) {
  const auto per_rank = rank_step_means(ctx.in.step_trace, nullptr);
  const auto waits = rank_wait_ratios(rank_wait_table(ctx.in));
  if (per_rank.size() < 2 && waits.size() < 2) return;
  begin_section(h, "ranks", "Every rank");
  note(h,
       "One point per rank, sorted by value: a rank that stands apart sits at the end of its "
       "curve. Red dots are the ranks judged slow (a slow rank computes most and waits least); "
       "click one for its details.");
  h.open("div", attr("class", "heats"));
  if (per_rank.size() >= 2) {
    std::vector<Point> comp, step;
    for (const auto& r : per_rank) {
      comp.push_back({r.rank, r.computing});
      step.push_back({r.rank, r.total()});
    }
    panel(h, "Computing per step (mean over steps)", comp, ctx.slow_ranks, fmt_us);
    panel(h, "Step time (mean over steps)", step, ctx.slow_ranks, fmt_us);
  }
  if (waits.size() >= 2) {
    std::vector<Point> w;
    for (const auto& r : waits) w.push_back({r.rank, r.wait_ratio});
    panel(h, "Communication wait ratio", w, ctx.slow_ranks, fmt_pct);
  }
  h.close();  // div
  rank_step_heatmap(h, ctx);
  h.close();  // section
}

}  // namespace cs::report
