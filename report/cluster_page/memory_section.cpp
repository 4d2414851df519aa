// The memory section of the cluster report (memory/ tables): the findings, the peak of every rank
// sorted with the flagged ranks labelled, a rank x step view of the peaks, and a drill-down per
// rank (its curve downsampled with min and max per bucket, so no peak is lost, and what held the
// memory at its peak). Plain SVG and <details>: no script needed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "report/cluster_page/cluster_sections.h"
#include "report/display_format.h"
#include "report/report_page.h"
#include "report/table_view.h"

namespace cs::report {

namespace {

constexpr size_t kDrillRanks = 24;     // curves drawn: the flagged ranks, then the highest peaks
constexpr size_t kHeatRanks = 128;     // rank rows of the rank x step view before bucketing
constexpr double kW = 1100, kH = 220;  // chart size

std::string gb(double mb) {
  return fmt_num(mb / 1024.0, 2) + " GB";
}

// An SVG coordinate: one decimal, no thousands separator.
std::string c1(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

struct RankRow {
  long long rank = 0;
  double peak = 0;  // MB
  std::string flag, holders, blocks, op;
  long long step = -1;
  double reserved = 0, growth = 0;
};

std::vector<RankRow> read_ranks(const io::Table* t) {
  const ColumnRef rank(t, "rank"), peak(t, "peak_allocated_mb"), flag(t, "flag"),
      holders(t, "peak_holders"), blocks(t, "largest_live_blocks"), op(t, "peak_operator"),
      step(t, "peak_step"), res(t, "peak_reserved_mb"), growth(t, "growth_mb_per_step");
  std::vector<RankRow> out;
  for (size_t r = 0; r < rows(t); ++r)
    out.push_back({rank.integer(r), peak.num(r), flag.str(r), holders.str(r), blocks.str(r),
                   op.str(r), step.integer(r), res.num(r), growth.num(r)});
  return out;
}

// Every rank's peak, sorted from the highest; flagged ranks red and labelled.
void sorted_peaks(HtmlOut& h, std::vector<RankRow> ranks) {
  std::stable_sort(ranks.begin(), ranks.end(),
                   [](const RankRow& a, const RankRow& b) { return a.peak > b.peak; });
  double top = 0;
  for (const auto& r : ranks) top = std::max(top, std::isfinite(r.peak) ? r.peak : 0);
  if (top <= 0) return;
  const double n = static_cast<double>(ranks.size());
  const double bw = kW / std::max(1.0, n);
  h.open("svg", attr("id", "mem-peaks") + attr("class", "chart") + attr("width", kW) +
                    attr("height", kH + 30) + attr("role", "img") +
                    attr("aria-label", "peak allocated memory per rank, sorted"));
  for (size_t i = 0; i < ranks.size(); ++i) {
    const RankRow& r = ranks[i];
    const double v = std::isfinite(r.peak) ? r.peak : 0;
    const double y = kH - kH * v / top + 20;
    const bool flagged = !r.flag.empty();
    h.open("rect", attr("x", bw * static_cast<double>(i)) + attr("y", y) +
                       attr("width", std::max(bw - 0.5, 0.5)) + attr("height", kH + 20 - y) +
                       attr("class", flagged ? "s1 memflag" : "s0") +
                       attr("data-rank", static_cast<double>(r.rank)));
    h.element(
        "title", {},
        "rank " + std::to_string(r.rank) + ": " + gb(v) + (flagged ? " (" + r.flag + ")" : ""));
    h.close();
    if (flagged)
      h.element("text",
                attr("x", bw * static_cast<double>(i) + bw / 2) + attr("y", std::max(12.0, y - 4)) +
                    attr("class", "memlabel") + attr("text-anchor", "middle") +
                    attr("font-size", 11.0) + attr("fill", "#cf222e"),
                "rank " + std::to_string(r.rank));
  }
  h.close();
  note(h, "Peak allocated memory of every rank, highest first (" + gb(top) +
              " at the top); orange and labelled: a memory finding.");
}

// Rank x step: each cell the step's peak, coloured on the common scale.
void rank_step_view(HtmlOut& h, const io::Table* steps) {
  const ColumnRef rank(steps, "rank"), step(steps, "step"), peak(steps, "peak_allocated_mb");
  std::map<long long, std::map<long long, double>> grid;
  std::set<long long> step_ids;
  double lo = INFINITY, hi = -INFINITY;
  for (size_t r = 0; r < rows(steps); ++r) {
    const double v = peak.num(r);
    if (!std::isfinite(v)) continue;
    grid[rank.integer(r)][step.integer(r)] = v;
    step_ids.insert(step.integer(r));
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (grid.empty()) return;
  // Buckets of consecutive ranks beyond kHeatRanks rows (the max of the bucket).
  const size_t per = (grid.size() + kHeatRanks - 1) / kHeatRanks;
  std::vector<std::pair<std::string, std::map<long long, double>>> rows_out;
  size_t k = 0;
  for (const auto& [r, cells] : grid) {
    if (k++ % per == 0)
      rows_out.push_back({std::to_string(r), {}});
    else if (per > 1)
      rows_out.back().first = rows_out.back().first.substr(0, rows_out.back().first.find('-')) +
                              "-" + std::to_string(r);
    for (const auto& [s, v] : cells) {
      auto [it, fresh] = rows_out.back().second.try_emplace(s, v);
      if (!fresh) it->second = std::max(it->second, v);
    }
  }
  const double cw = std::min(60.0, 900.0 / static_cast<double>(step_ids.size()));
  const double ch = std::max(3.0, std::min(14.0, 600.0 / static_cast<double>(rows_out.size())));
  const double left = 70;
  h.open("svg", attr("id", "mem-rank-step") + attr("class", "chart") +
                    attr("width", left + cw * static_cast<double>(step_ids.size()) + 10) +
                    attr("height", ch * static_cast<double>(rows_out.size()) + 20) +
                    attr("role", "img") + attr("aria-label", "peak memory per rank and step"));
  size_t col = 0;
  for (long long s : step_ids)
    h.element("text",
              attr("x", left + cw * static_cast<double>(col++) + cw / 2) + attr("y", 12.0) +
                  attr("text-anchor", "middle") + attr("font-size", 10.0),
              "step " + std::to_string(s));
  for (size_t i = 0; i < rows_out.size(); ++i) {
    const double y = 16 + ch * static_cast<double>(i);
    if (ch >= 9)
      h.element("text",
                attr("x", left - 4) + attr("y", y + ch - 2) + attr("text-anchor", "end") +
                    attr("font-size", 9.0),
                rows_out[i].first);
    col = 0;
    for (long long s : step_ids) {
      auto it = rows_out[i].second.find(s);
      const double x = left + cw * static_cast<double>(col++);
      if (it == rows_out[i].second.end()) continue;
      const int q =
          hi > lo ? static_cast<int>(std::lround(8.0 * (it->second - lo) / (hi - lo))) : 0;
      h.open("rect", attr("x", x) + attr("y", y) + attr("width", cw - 1) +
                         attr("height", std::max(1.0, ch - 1)) +
                         attr("class", "q" + std::to_string(q)));
      h.element(
          "title", {},
          "rank " + rows_out[i].first + ", step " + std::to_string(s) + ": " + gb(it->second));
      h.close();
    }
  }
  h.close();
  note(h, "Peak allocated memory per rank (rows" +
              std::string(per > 1 ? ", " + std::to_string(per) + " ranks per row: their maximum"
                                  : "") +
              ") and step (columns), from " + gb(lo) + " (light) to " + gb(hi) +
              " (dark): a leak darkens a row step after step.");
}

// One rank's curve: the band between the min and the max of each bucket, and reserved memory.
void rank_curve(HtmlOut& h, const io::Table* curves, long long want) {
  const ColumnRef rank(curves, "rank"), start(curves, "start_us"), mn(curves, "min_allocated_mb"),
      mx(curves, "max_allocated_mb"), res(curves, "max_reserved_mb");
  std::vector<size_t> idx;
  for (size_t r = 0; r < rows(curves); ++r)
    if (rank.integer(r) == want) idx.push_back(r);
  if (idx.empty()) return;
  double t0 = start.num(idx.front()), t1 = start.num(idx.back()), top = 0;
  for (size_t r : idx) top = std::max({top, mx.num(r), res.num(r)});
  if (!(top > 0)) return;
  const double span = std::max(1.0, t1 - t0);
  auto X = [&](double t) { return 10 + (kW - 20) * (t - t0) / span; };
  auto Y = [&](double v) { return 10 + (kH - 20) * (1 - v / top); };
  std::string band, line;
  for (size_t r : idx) band += c1(X(start.num(r))) + "," + c1(Y(mx.num(r))) + " ";
  for (auto it = idx.rbegin(); it != idx.rend(); ++it)
    band += c1(X(start.num(*it))) + "," + c1(Y(mn.num(*it))) + " ";
  for (size_t r : idx) line += c1(X(start.num(r))) + "," + c1(Y(res.num(r))) + " ";
  h.open("svg", attr("class", "chart memcurve") + attr("width", kW) + attr("height", kH) +
                    attr("role", "img") +
                    attr("aria-label", "memory of rank " + std::to_string(want) + " over time"));
  h.empty("polygon", attr("points", band) + attr("fill", "#54aeff") + attr("stroke", "#0969da"));
  h.empty("polyline", attr("points", line) + attr("fill", "none") + attr("stroke", "#fb8f44") +
                          attr("stroke-dasharray", "4 2"));
  h.close();
}

}  // namespace

void section_memory(HtmlOut& h, const ClusterContext& ctx) {
  const io::Table* ranks_t = ctx.in.memory_ranks;
  if (!ranks_t) return;  // no rank was profiled with profile_memory: no section
  begin_section(h, "memory", "Memory");
  const std::vector<RankRow> ranks = read_ranks(ranks_t);
  const ColumnRef ev(ctx.in.memory_findings, "evidence");
  if (rows(ctx.in.memory_findings) == 0) {
    note(h,
         "No memory finding: every rank's peak is within the spread of its stage peers, no "
         "allocation floor grows step after step.");
  } else {
    h.open("ul", attr("id", "mem-findings"));
    for (size_t r = 0; r < rows(ctx.in.memory_findings); ++r) h.element("li", {}, ev.str(r));
    h.close();
  }
  sorted_peaks(h, ranks);
  rank_step_view(h, ctx.in.memory_steps);
  // Drill-down: flagged ranks first, then the highest peaks.
  std::vector<RankRow> order = ranks;
  std::stable_sort(order.begin(), order.end(), [](const RankRow& a, const RankRow& b) {
    if (a.flag.empty() != b.flag.empty()) return !a.flag.empty();
    return a.peak > b.peak;
  });
  if (order.size() > kDrillRanks) order.resize(kDrillRanks);
  note(h,
       "Each rank's allocated memory over time (blue: min to max of each of up to 256 time "
       "buckets, so no peak is lost; orange: reserved), and what it held at its peak. Ranks "
       "with a finding first, then the highest peaks; every rank is in memory_curves.csv.");
  for (const RankRow& r : order) {
    h.open("details", attr("class", "memrank") + attr("id", "mem-rank-" + std::to_string(r.rank)));
    h.element("summary", {},
              "rank " + std::to_string(r.rank) + ": peak " + gb(r.peak) +
                  (r.step >= 0 ? " in step " + std::to_string(r.step) : "") +
                  (r.flag.empty() ? "" : " \u2014 " + r.flag));
    rank_curve(h, ctx.in.memory_curves, r.rank);
    h.open("table");
    table_head(h, {"at the peak", ""});
    h.open("tbody");
    for (const auto& [k, v] :
         {std::pair<std::string, std::string>{"reserved (pool peak)", gb(r.reserved)},
          {"last allocation before the peak", r.op},
          {"held by operator", r.holders},
          {"largest live blocks", r.blocks},
          {"floor growth per step", fmt_num(r.growth, 1) + " MB"}}) {
      h.open("tr");
      h.element("td", {}, k);
      h.element("td", attr("class", "key"), v);
      h.close();
    }
    h.close();
    h.close();
    h.close();
  }
  h.close();
}

}  // namespace cs::report
