// report.html for a GPU job: overview, findings, per-rank step breakdown, collectives per group,
// rank waits and top kernels, drawn from the tables of gpu_tables.h.
#include "gpu/gpu_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "report/display_format.h"
#include "report/html_out.h"
#include "report/page_script.h"
#include "report/rank_bars.h"
#include "report/report_page.h"
#include "report/svg_charts.h"
#include "report/table_view.h"

namespace cs::gpu {
namespace {

using report::ColumnRef;
using report::HtmlOut;
using report::rows;

constexpr size_t kMaxBars = 256, kBucket = 128, kTopRows = 50;

// Mean per step of each part of a rank's step (µs).
struct RankParts {
  long long rank = 0;
  double computing = 0, not_overlapped = 0, overlapped = 0, free = 0, memory = 0, step = 0;
  size_t steps = 0;
};

std::vector<RankParts> rank_parts(const io::Table* t) {
  const ColumnRef rank(t, "rank"), comp(t, "computing_us"), cno(t, "comm_not_overlapped_us"),
      ov(t, "overlapped_us"), fr(t, "free_us"), mem(t, "memory_us"), st(t, "step_us");
  std::map<long long, RankParts> acc;
  const auto v = [](double x) { return std::isfinite(x) ? x : 0.0; };
  for (size_t r = 0; r < rows(t); ++r) {
    auto& p = acc[rank.integer(r)];
    p.computing += v(comp.num(r)), p.not_overlapped += v(cno.num(r)), p.overlapped += v(ov.num(r));
    p.free += v(fr.num(r)), p.memory += v(mem.num(r)), p.step += v(st.num(r)), ++p.steps;
  }
  std::vector<RankParts> out;
  for (auto& [rk, p] : acc) {
    p.rank = rk;
    const double n = static_cast<double>(std::max<size_t>(p.steps, 1));
    p.computing /= n, p.not_overlapped /= n, p.overlapped /= n, p.free /= n, p.memory /= n;
    p.step /= n;
    out.push_back(p);
  }
  return out;
}

std::set<long long> slow_set(const io::Table* t) {
  std::set<long long> s;
  const ColumnRef rank(t, "rank");
  for (size_t r = 0; r < rows(t); ++r) s.insert(rank.integer(r));
  return s;
}

void section_overview(HtmlOut& h, const GpuReportInput& in, const std::vector<RankParts>& parts) {
  report::begin_section(h, "overview", "Overview");
  double step = 0, comp = 0, cno = 0, fr = 0;
  for (const auto& p : parts)
    step += p.step, comp += p.computing, cno += p.not_overlapped, fr += p.free;
  const double n = parts.empty() ? 1 : static_cast<double>(parts.size());
  size_t steps = 0;
  for (const auto& p : parts) steps = std::max(steps, p.steps);
  report::stat_cards(h,
                     {{"Ranks", std::to_string(parts.size())},
                      {"Steps", std::to_string(steps)},
                      {"Mean step", report::fmt_us(step / n)},
                      {"Computing", step > 0 ? report::fmt_pct(comp / step) : ""},
                      {"Communication not overlapped", step > 0 ? report::fmt_pct(cno / step) : ""},
                      {"Free", step > 0 ? report::fmt_pct(fr / step) : ""},
                      {"Collective instances", std::to_string(in.collective_instances)},
                      {"Slow ranks", std::to_string(rows(in.slow_ranks))},
                      {"Slow groups", std::to_string(rows(in.slow_groups))}});
  report::note(h,
               "A GPU job (PyTorch profiler / Kineto traces, NCCL or RCCL collectives). "
               "Percentages are of the mean step over every rank.");
  h.close();
}

void section_findings(HtmlOut& h, const GpuReportInput& in) {
  report::begin_section(h, "findings", "Findings");
  const ColumnRef rank(in.slow_ranks, "rank"), cause(in.slow_ranks, "cause"),
      ev(in.slow_ranks, "evidence");
  const ColumnRef grp(in.slow_groups, "group"), type(in.slow_groups, "type"),
      ratio(in.slow_groups, "ratio"), link(in.slow_groups, "link"),
      gsize(in.slow_groups, "group_size");
  if (rows(in.slow_ranks) == 0 && rows(in.slow_groups) == 0) {
    report::note(h,
                 "Nothing stands out: no rank keeps the others waiting and no process group is "
                 "slower per byte than its like.");
    h.close();
    return;
  }
  h.open("ul", report::attr("class", "findings"));
  for (size_t r = 0; r < rows(in.slow_ranks); ++r) {
    const std::string c = cause.str(r);
    const std::string why = c == "compute" ? "it computes longer than its peers"
                            : c == "host"  ? "its GPU idles longer than its peers' (host side)"
                                           : "the traces do not say why";
    h.open("li", report::attr("data-rank", std::to_string(rank.integer(r))));
    h.text("Slow rank " + std::to_string(rank.integer(r)) +
           ": the ranks it shares collectives with wait for it; " + why + " (cause: " + c +
           "). Evidence: " + ev.str(r) + ".");
    h.close();
  }
  for (size_t r = 0; r < rows(in.slow_groups); ++r) {
    std::string s = "Slow group " + grp.str(r) + " (" + type.str(r) + ", " + gsize.str(r) +
                    " ranks): " + report::fmt_num(ratio.num(r), 2) +
                    "\u00d7 the median time per byte of groups like it";
    if (!link.str(r).empty()) s += "; the link between ranks " + link.str(r) + " is slow";
    h.element("li", "", s + ".");
  }
  h.close();
  h.close();
}

void section_steps(HtmlOut& h, const std::vector<RankParts>& parts,
                   const std::set<long long>& slow) {
  report::begin_section(h, "steps", "Step time per rank");
  if (parts.empty()) {
    report::not_computed(h, "The step breakdown");
    h.close();
    return;
  }
  report::note(h,
               "Mean per step. Computing: compute kernels; communication not overlapped: NCCL "
               "kernels while no compute kernel runs; overlap: both at once (inside computing); "
               "free: the GPU idle. Slow ranks are marked.");
  std::vector<report::RankPoint> pts;
  for (const auto& p : parts)
    pts.push_back(
        {p.rank, {p.computing, p.not_overlapped, p.free + p.memory}, slow.count(p.rank) > 0});
  const bool bucketed = pts.size() > kMaxBars;
  const auto bars = report::bucket_ranks(pts, bucketed ? kBucket : kMaxBars);
  const std::vector<report::SeriesStyle> series = {
      {"Computing", "s0"}, {"Communication not overlapped", "s1"}, {"Free and memory", "s2"}};
  report::legend(h, series);
  report::RankChartOptions opt;
  opt.fmt = report::fmt_us;
  opt.x_label = bucketed ? "ranks (buckets)" : "rank";
  opt.aria_label = "Step time per rank";
  report::rank_bar_chart(h, bars, series, opt);
  h.open("table", report::attr("id", "gpu-steps"));
  report::table_head(h, {"#rank", "#computing (µs)", "#communication not overlapped (µs)",
                         "#overlap (µs)", "#free (µs)", "#memory (µs)", "#step (µs)", "slow"});
  h.open("tbody");
  for (const auto& p : parts) {
    h.open("tr");
    report::num_cell(h, std::to_string(p.rank));
    for (double x : {p.computing, p.not_overlapped, p.overlapped, p.free, p.memory, p.step})
      report::num_cell(h, report::fmt_num(x, 1));
    h.element("td", "", slow.count(p.rank) ? "slow" : "");
    h.close();
  }
  h.close();
  h.close();
  h.close();
}

// A table of every row of `t` with the given (column, header, decimals) triples; decimals < 0
// writes the cell as text.
struct Col {
  const char* name;
  const char* header;
  int decimals;
};
// At least `decimals`, more for a small non-zero value so it keeps 3 significant digits
// (a 4-byte allreduce's bus bandwidth is 0.000126 GB/s, not 0.00).
int decimals_for(double v, int decimals) {
  const double a = std::fabs(v);
  if (!std::isfinite(a) || a == 0 || a >= 1) return decimals;
  return std::max(decimals, std::min(9, 2 - static_cast<int>(std::floor(std::log10(a)))));
}

void plain_table(HtmlOut& h, const io::Table* t, const std::vector<Col>& cols, size_t max_rows) {
  std::vector<ColumnRef> refs;
  std::vector<std::string> heads;
  for (const auto& c : cols) {
    refs.emplace_back(t, c.name);
    heads.push_back(std::string(c.decimals >= 0 ? "#" : "") + c.header);
  }
  h.open("table");
  report::table_head(h, heads);
  h.open("tbody");
  for (size_t r = 0; r < rows(t) && r < max_rows; ++r) {
    h.open("tr");
    for (size_t i = 0; i < cols.size(); ++i) {
      if (cols[i].decimals < 0)
        h.element("td", "", refs[i].str(r));
      else
        report::num_cell(
            h, report::fmt_num(refs[i].num(r), decimals_for(refs[i].num(r), cols[i].decimals)));
    }
    h.close();
  }
  h.close();
  h.close();
}

void table_section(HtmlOut& h, const char* id, const char* title, const io::Table* t,
                   const std::string& what, const std::string& how, const std::vector<Col>& cols,
                   size_t max_rows) {
  report::begin_section(h, id, title);
  if (!t) {
    report::not_computed(h, what);
  } else {
    std::string n = how;
    if (rows(t) > max_rows)
      n += " The first " + std::to_string(max_rows) + " of " + std::to_string(rows(t)) +
           " rows are shown; the CSV holds all.";
    report::note(h, n);
    plain_table(h, t, cols, max_rows);
  }
  h.close();
}

}  // namespace

std::string render_gpu_report_html(const GpuReportInput& in) {
  const auto parts = rank_parts(in.step_trace);
  const auto slow = slow_set(in.slow_ranks);
  HtmlOut h;
  std::vector<std::string> sub;
  if (!in.input_path.empty()) sub.push_back("Input: " + in.input_path);
  report::begin_page(h, "clusterscope \u2014 GPU cluster report", sub);
  report::nav_bar(h, {{"overview", "Overview"},
                      {"findings", "Findings"},
                      {"steps", "Step time"},
                      {"collectives", "Collectives"},
                      {"waits", "Rank waits"},
                      {"kernels", "Top kernels"}});
  report::PageData d;
  d.input_path = in.input_path;
  d.slow_ranks.assign(slow.begin(), slow.end());
  report::page_data(h, d);
  h.open("main");
  section_overview(h, in, parts);
  section_findings(h, in);
  section_steps(h, parts, slow);
  table_section(h, "collectives", "Collectives per process group", in.collective_groups,
                "Collectives per group",
                "Per process group and collective type: latency is the fastest rank's kernel "
                "time per instance, summed; bus bandwidth follows NCCL's convention.",
                {{"group", "group", -1},
                 {"type", "type", -1},
                 {"group_size", "ranks", 0},
                 {"instances", "instances", 0},
                 {"bytes", "bytes", 0},
                 {"latency_us", "latency (µs)", 1},
                 {"algbw_gbps", "algorithm bandwidth (GB/s)", 2},
                 {"busbw_gbps", "bus bandwidth (GB/s)", 2}},
                1000);
  table_section(h, "waits", "Rank waits", in.rank_waits, "Rank waits",
                "Wait: time a rank's collective kernels spent waiting for the last member to "
                "arrive; caused wait: the delay a rank caused alone as the last to arrive.",
                {{"rank", "rank", 0},
                 {"collectives", "collectives", 0},
                 {"wait_us", "wait (µs)", 1},
                 {"transit_us", "transit (µs)", 1},
                 {"wait_ratio", "wait ratio", 3},
                 {"last_arrivals", "last arrivals", 0},
                 {"caused_wait_us", "caused wait (µs)", 1}},
                100000);
  table_section(h, "kernels", "Top kernels across ranks", in.kernels_topn, "Top kernels",
                "The kernels of most time over every rank, with the spread of their time per "
                "rank (exact quantiles).",
                {{"key", "kernel", -1},
                 {"communication", "communication", -1},
                 {"count", "count", 0},
                 {"total_us", "total (µs)", 1},
                 {"ranks", "ranks", 0},
                 {"rank_mean_us", "mean per rank (µs)", 1},
                 {"rank_p50_us", "p50 (µs)", 1},
                 {"rank_max_us", "max (µs)", 1}},
                kTopRows);
  report::end_page(h);
  return h.finish();
}

bool write_gpu_report_html(const GpuReportInput& in, const std::string& path,
                           io::Diagnostics& diag) {
  return report::write_text_file(path, render_gpu_report_html(in), diag);
}

}  // namespace cs::gpu
