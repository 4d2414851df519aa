#pragma once
// Inline SVG charts for the HTML reports: per-rank stacked bars (with min/median/max whiskers for
// bucketed ranks), a heatmap grid, and tiny in-table bars. Colours come from CSS classes defined in
// report_page.cpp, so the markup stays small for clusters of thousands of ranks. Native <title>
// tooltips replace scripts.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "report/html_out.h"
#include "report/rank_bars.h"

namespace cs::report {

struct SeriesStyle {
  std::string name;       // legend text, e.g. "Computing"
  std::string css_class;  // fill class, e.g. "s0"
};

struct RankChartOptions {
  double width = 1200;
  double height = 280;
  std::function<std::string(double)> fmt;  // value -> text (axis ticks, tooltips)
  std::string x_label = "rank";
  std::string aria_label;
  // Draw each bar's min/median/max whisker when it holds several ranks.
  bool whiskers = true;
  // A fixed top of the value axis (e.g. 1.0 for ratios); 0 = from the data.
  double y_max = 0;
};

// Round-up to 1, 2 or 5 times a power of ten: nice_ceiling(0.87) == 1, nice_ceiling(3400) == 5000.
double nice_ceiling(double x);

// A legend line: a coloured square and name per series.
void legend(HtmlOut& h, const std::vector<SeriesStyle>& series);

// Stacked vertical bars, one per RankBar, parts stacked bottom-up in `series` order; bars with
// flagged ranks get a red outline and a marker above.
void rank_bar_chart(HtmlOut& h, const std::vector<RankBar>& bars,
                    const std::vector<SeriesStyle>& series, const RankChartOptions& opt);

// A square src x dst grid. values[i * n + j] is the cell of row i (source) and column j
// (destination), NaN when there is no data; marked cells get a red outline.
struct HeatGrid {
  size_t n = 0;
  std::vector<std::string> labels;  // per row/column: "3" or "0–63"
  std::vector<double> values;
  std::vector<char> marked;
};

// Draws the grid with colours scaled to [0, vmax] in 9 steps (class q0..q8), `fmt` for tooltips.
void heatmap_chart(HtmlOut& h, const HeatGrid& grid, double vmax,
                   const std::function<std::string(double)>& fmt, const std::string& aria_label);

// The colour scale legend of heatmap_chart: "low … high" with the end values.
void heatmap_legend(HtmlOut& h, double vmax, const std::function<std::string(double)>& fmt);

// An inline bar for a table cell: `frac` of the width filled (clamped to [0, 1]).
void mini_bar(HtmlOut& h, double frac, const char* css_class = "mb");

// A diverging bar centred on zero for a table cell: value / max_abs of the half-width, red when
// positive (worse: comparison slower), green when negative.
void diff_bar(HtmlOut& h, double value, double max_abs);

}  // namespace cs::report
