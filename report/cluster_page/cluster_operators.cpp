// Top-operators section of the cluster report: the TopN table with cross-rank spread.
#include <algorithm>
#include <cmath>

#include "report/cluster_page/cluster_sections.h"
#include "report/display_format.h"
#include "report/report_page.h"
#include "report/svg_charts.h"
#include "report/table_view.h"

namespace cs::report {

namespace {
constexpr size_t kMaxOperatorRows = 100;
constexpr double kHighCv = 0.3;  // cross-rank CV above this is drawn red
}  // namespace

void section_operators(HtmlOut& h, const ClusterContext& ctx) {
  begin_section(h, "operators", "Top operators");
  const io::Table* t = ctx.in.operators_topn;
  if (!t) {
    not_computed(h, "Operator TopN");
    h.close();
    return;
  }
  if (rows(t) == 0) {
    note(h, "No operators were found.");
    h.close();
    return;
  }
  const ColumnRef key(t, "key"), count(t, "count"), total(t, "total_us"), mean(t, "mean_us"),
      p50(t, "p50_us"), p90(t, "p90_us"), p99(t, "p99_us"), mn(t, "min_us"), mx(t, "max_us"),
      ranks(t, "ranks"), min_rank(t, "min_rank"), max_rank(t, "max_rank"), cv(t, "cross_rank_cv");
  double max_total = 0;
  for (size_t r = 0; r < rows(t); ++r)
    if (std::isfinite(total.num(r))) max_total = std::max(max_total, total.num(r));
  note(h,
       "Operators by total device time over all ranks. Spread across ranks: the coefficient of "
       "variation of each rank's total for the operator (bar full at 1.0, red above 0.3), with the "
       "ranks holding the shortest and the longest single call.");
  h.open("table");
  table_head(h, {"#", "operator", "#calls", "#total", "", "#mean", "#p50", "#p90", "#p99", "#min",
                 "#max", "#ranks", "#min on rank", "#max on rank", "#cross-rank CV", ""});
  h.open("tbody");
  for (size_t r = 0; r < rows(t) && r < kMaxOperatorRows; ++r) {
    const double c = cv.num(r);
    h.open("tr", std::isfinite(c) && c > kHighCv ? attr("class", "flag") : std::string());
    num_cell(h, std::to_string(r + 1));
    h.element("td", attr("class", "key"), key.str(r));
    num_cell(h, fmt_num(count.num(r), 0));
    num_cell(h, fmt_us(total.num(r)));
    h.open("td");
    mini_bar(h, max_total > 0 ? total.num(r) / max_total : 0, "mb");
    h.close();
    num_cell(h, fmt_us(mean.num(r)));
    num_cell(h, fmt_us(p50.num(r)));
    num_cell(h, fmt_us(p90.num(r)));
    num_cell(h, fmt_us(p99.num(r)));
    num_cell(h, fmt_us(mn.num(r)));
    num_cell(h, fmt_us(mx.num(r)));
    num_cell(h, fmt_num(ranks.num(r), 0));
    num_cell(h, min_rank.str(r));
    num_cell(h, max_rank.str(r));
    num_cell(h, std::isfinite(c) ? fmt_num(c, 3) : "\u2013");
    h.open("td");
    mini_bar(h, c, std::isfinite(c) && c > kHighCv ? "cvh" : "cv");
    h.close();
    h.close();
  }
  h.close();
  h.close();
  if (rows(t) > kMaxOperatorRows)
    note(h, "\u2026 and " + std::to_string(rows(t) - kMaxOperatorRows) +
                " more: see operators_topn.csv.");
  h.close();
}

}  // namespace cs::report
