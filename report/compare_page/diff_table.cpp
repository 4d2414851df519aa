#include "report/compare_page/diff_table.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "report/display_format.h"
#include "report/report_page.h"
#include "report/svg_charts.h"
#include "report/table_view.h"

namespace cs::report {

namespace {

std::string cell_text(const ColumnRef& c, size_t r, CellKind kind) {
  const double v = c.num(r);
  switch (kind) {
    case CellKind::kText:
      return c.str(r);
    case CellKind::kCount:
      return fmt_num(v, 0);
    case CellKind::kUs:
      return fmt_us(v);
    case CellKind::kMs:
      return fmt_us(v * 1000.0);
    case CellKind::kRatio:
      return fmt_num(v, 3);
    case CellKind::kPercent:
      return fmt_pct(v);
  }
  return {};
}

}  // namespace

std::string middle_ellipsis(const std::string& text, size_t max) {
  // Code point starts, so a cut never splits a UTF-8 sequence.
  std::vector<size_t> starts;
  for (size_t i = 0; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
  if (starts.size() <= max || max < 3) return text;
  const size_t keep = (max - 1) / 2;
  return text.substr(0, starts[keep]) + "\u2026" + text.substr(starts[starts.size() - keep]);
}

size_t diff_table(HtmlOut& h, const io::Table& t, const DiffTableSpec& spec) {
  const ColumnRef diff(&t, spec.diff_column);
  std::vector<size_t> order(t.rows());
  std::iota(order.begin(), order.end(), size_t{0});
  const auto mag = [&](size_t r) {
    const double v = std::fabs(diff.num(r));
    return std::isfinite(v) ? v : -1.0;
  };
  // A difference below the display resolution (0.05 µs, 0.00005 ms) is no difference.
  const double zero = spec.diff_column.find("_ms") != std::string::npos ? 5e-5 : 0.05;
  if (spec.skip_zero) std::erase_if(order, [&](size_t r) { return !(mag(r) >= zero); });
  if (spec.sort_by_abs_diff)
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return mag(a) > mag(b); });
  const size_t shown = std::min(order.size(), spec.max_rows);
  double max_abs = 0;
  for (size_t i = 0; i < shown; ++i) max_abs = std::max(max_abs, mag(order[i]));

  std::vector<std::string> headers;
  std::vector<ColumnRef> cols;
  for (const auto& c : spec.columns) {
    headers.push_back(c.kind == CellKind::kText ? c.header : "#" + c.header);
    cols.emplace_back(&t, c.column);
  }
  headers.push_back("");
  h.open("table");
  table_head(h, headers);
  h.open("tbody");
  for (size_t i = 0; i < shown; ++i) {
    const size_t r = order[i];
    const double d = diff.num(r);
    h.open("tr");
    for (size_t k = 0; k < cols.size(); ++k) {
      const auto& spec_col = spec.columns[k];
      std::string cls = spec_col.kind == CellKind::kText ? "key" : "n";
      if (spec_col.column == spec.diff_column && std::isfinite(d) && d != 0)
        cls += d > 0 ? " worse" : " better";
      std::string text = cell_text(cols[k], r, spec_col.kind);
      if (spec_col.column == spec.diff_column && std::isfinite(d) && d > 0) text = "+" + text;
      const std::string shown_text =
          spec_col.kind == CellKind::kText ? middle_ellipsis(text) : text;
      if (shown_text != text)
        h.element("td",
                  attr("class", cls + " short") + attr("title", text) + attr("data-full", text),
                  shown_text);
      else
        h.element("td", attr("class", cls), text);
    }
    h.open("td");
    diff_bar(h, d, max_abs);
    h.close();
    h.close();
  }
  h.close();
  h.close();
  return t.rows() - shown;
}

}  // namespace cs::report
