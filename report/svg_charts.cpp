#include "report/svg_charts.h"

#include <algorithm>
#include <cmath>

#include "report/display_format.h"

namespace cs::report {

namespace {

std::string call_fmt(const std::function<std::string(double)>& fmt, double v) {
  return fmt ? fmt(v) : fmt_num(v, 2);
}

double finite_or_zero(double v) {
  return std::isfinite(v) ? v : 0.0;
}

}  // namespace

double nice_ceiling(double x) {
  if (!(x > 0) || !std::isfinite(x)) return 1.0;
  const double p = std::pow(10.0, std::floor(std::log10(x)));
  const double m = x / p;
  for (double step : {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0})
    if (m <= step + 1e-9) return step * p;
  return 10 * p;
}

namespace {
// Approximate width in px of `s` at the 10px tick font (UTF-8 continuation bytes not counted).
double text_px(const std::string& s) {
  size_t chars = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++chars;
  return 6.2 * static_cast<double>(chars);
}
}  // namespace

void legend(HtmlOut& h, const std::vector<SeriesStyle>& series) {
  h.open("div", attr("class", "legend"));
  for (const auto& s : series) {
    h.open("span", attr("class", "key"));
    h.element("span", attr("class", "sw " + s.css_class), "");
    h.text(s.name);
    h.close();
  }
  h.close();
}

void rank_bar_chart(HtmlOut& h, const std::vector<RankBar>& bars,
                    const std::vector<SeriesStyle>& series, const RankChartOptions& opt) {
  const double left = 72, right = 34, top = 16, bottom = 42;
  const double pw = opt.width - left - right, ph = opt.height - top - bottom;
  double ymax = opt.y_max;
  if (!(ymax > 0)) {
    for (const auto& b : bars) {
      double t = 0;
      for (double v : b.parts) t += finite_or_zero(v);
      ymax = std::max({ymax, t, opt.whiskers ? finite_or_zero(b.total_max) : 0.0});
    }
    ymax = nice_ceiling(ymax);
  }
  const auto y_of = [&](double v) { return top + ph - std::clamp(v / ymax, 0.0, 1.0) * ph; };

  h.open("svg", attr("class", "chart") +
                    attr("viewBox", "0 0 " + std::to_string(static_cast<int>(opt.width)) + " " +
                                        std::to_string(static_cast<int>(opt.height))) +
                    attr("width", opt.width) + attr("height", opt.height) + attr("role", "img") +
                    attr("aria-label", opt.aria_label));
  // Grid and value axis.
  for (int i = 0; i <= 4; ++i) {
    const double v = ymax * i / 4.0, y = y_of(v);
    h.empty("line", attr("class", "grid") + attr("x1", left) + attr("x2", left + pw) +
                        attr("y1", y) + attr("y2", y));
    h.element(
        "text",
        attr("class", "tick") + attr("x", left - 6) + attr("y", y + 4) + attr("text-anchor", "end"),
        call_fmt(opt.fmt, v));
  }
  const size_t n = bars.size();
  const double bw = n ? pw / static_cast<double>(n) : pw;
  const double gap = bw > 4 ? bw * 0.15 : 0;
  const size_t label_every = std::max<size_t>(1, static_cast<size_t>(std::ceil(n * 72.0 / pw)));
  for (size_t i = 0; i < n; ++i) {
    const RankBar& b = bars[i];
    const double x = left + bw * static_cast<double>(i) + gap / 2, w = std::max(bw - gap, 0.6);
    std::string tip = (b.count > 1 ? "ranks " : "rank ") + b.label();
    double total = 0;
    for (size_t k = 0; k < b.parts.size() && k < series.size(); ++k) {
      tip += "\n" + series[k].name + (b.count > 1 ? " (mean): " : ": ") +
             call_fmt(opt.fmt, b.parts[k]);
      total += finite_or_zero(b.parts[k]);
    }
    if (b.count > 1)
      tip += "\ntotal min / median / max: " + call_fmt(opt.fmt, b.total_min) + " / " +
             call_fmt(opt.fmt, b.total_median) + " / " + call_fmt(opt.fmt, b.total_max) +
             " (max on rank " + std::to_string(b.max_rank) + ")";
    if (b.flagged)
      tip += "\nflagged: " + std::to_string(b.flagged) + (b.flagged > 1 ? " ranks" : " rank");
    h.open("g");
    h.element("title", "", tip);
    double base = 0;
    for (size_t k = 0; k < b.parts.size() && k < series.size(); ++k) {
      const double v = finite_or_zero(b.parts[k]);
      if (v <= 0) continue;
      const double y1 = y_of(base + v), y0 = y_of(base);
      h.empty("rect", attr("class", series[k].css_class) + attr("x", x) + attr("y", y1) +
                          attr("width", w) + attr("height", std::max(y0 - y1, 0.0)));
      base += v;
    }
    if (opt.whiskers && b.count > 1) {
      const double cx = x + w / 2;
      h.empty("line", attr("class", "wh") + attr("x1", cx) + attr("x2", cx) +
                          attr("y1", y_of(b.total_min)) + attr("y2", y_of(b.total_max)));
      h.empty("line", attr("class", "wh") + attr("x1", x) + attr("x2", x + w) +
                          attr("y1", y_of(b.total_median)) + attr("y2", y_of(b.total_median)));
    }
    if (b.flagged) {
      const double top_y = y_of(std::max(total, opt.whiskers && b.count > 1 ? b.total_max : 0.0));
      h.empty("rect", attr("class", "flag") + attr("x", x) + attr("y", top_y) + attr("width", w) +
                          attr("height", std::max(top + ph - top_y, 0.0)));
      const double cx = x + w / 2, ty = std::max(top_y - 3, 6.0);
      h.empty("path",
              attr("class", "flagmark") + attr("d", std::string("M") + fmt_num(cx, 1) + " " +
                                                        fmt_num(ty, 1) + "l-4 -6h8z"));
    }
    h.close();  // g
    if (i % label_every == 0)
      h.element("text",
                attr("class", "tick") + attr("x", x + w / 2) + attr("y", top + ph + 14) +
                    attr("text-anchor", "middle"),
                b.label());
  }
  h.empty("line", attr("class", "axis") + attr("x1", left) + attr("x2", left + pw) +
                      attr("y1", top + ph) + attr("y2", top + ph));
  h.element("text",
            attr("class", "axl") + attr("x", left + pw / 2) + attr("y", opt.height - 6) +
                attr("text-anchor", "middle"),
            opt.x_label);
  h.close();  // svg
}

void heatmap_chart(HtmlOut& h, const HeatGrid& g, double vmax,
                   const std::function<std::string(double)>& fmt, const std::string& aria_label) {
  const size_t n = g.n;
  const double cell = std::clamp(448.0 / static_cast<double>(std::max<size_t>(n, 1)), 6.0, 36.0);
  double label_w = 0;
  for (const auto& l : g.labels) label_w = std::max(label_w, text_px(l));
  const double left = 30 + label_w, top = 10, bottom = 44;
  const double side = cell * static_cast<double>(n);
  const double width = left + side + label_w / 2 + 12, height = top + side + bottom;
  if (!(vmax > 0)) vmax = 1;
  h.open("svg", attr("class", "chart heat") +
                    attr("viewBox", "0 0 " + std::to_string(static_cast<int>(width)) + " " +
                                        std::to_string(static_cast<int>(height))) +
                    attr("width", width) + attr("height", height) + attr("role", "img") +
                    attr("aria-label", aria_label));
  h.empty("rect", attr("class", "hbg") + attr("x", left) + attr("y", top) + attr("width", side) +
                      attr("height", side));
  const size_t label_every = std::max<size_t>(1, static_cast<size_t>(std::ceil(13.0 / cell)));
  const size_t col_label_every =
      std::max<size_t>(1, static_cast<size_t>(std::ceil((label_w + 8.0) / cell)));
  for (size_t i = 0; i < n; ++i) {
    const double y = top + cell * static_cast<double>(i);
    if (i % label_every == 0)
      h.element("text",
                attr("class", "tick") + attr("x", left - 4) + attr("y", y + cell / 2 + 3.5) +
                    attr("text-anchor", "end"),
                g.labels[i]);
    if (i % col_label_every == 0)
      h.element("text",
                attr("class", "tick") + attr("x", left + y - top + cell / 2) +
                    attr("y", top + side + 13) + attr("text-anchor", "middle"),
                g.labels[i]);
  }
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      const double v = g.values[i * n + j];
      if (!std::isfinite(v)) continue;
      const int q = std::clamp(static_cast<int>(v / vmax * 9.0), 0, 8);
      const double x = left + cell * static_cast<double>(j),
                   y = top + cell * static_cast<double>(i);
      h.open("rect", attr("class", std::string("q") + std::to_string(q)) + attr("x", x) +
                         attr("y", y) + attr("width", cell) + attr("height", cell));
      h.element("title", "", g.labels[i] + " \u2192 " + g.labels[j] + ": " + call_fmt(fmt, v));
      h.close();
    }
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (!g.marked.empty() && g.marked[i * n + j])
        h.empty("rect", attr("class", "mk") + attr("x", left + cell * static_cast<double>(j)) +
                            attr("y", top + cell * static_cast<double>(i)) + attr("width", cell) +
                            attr("height", cell));
  h.element("text",
            attr("class", "axl") + attr("x", left + side / 2) + attr("y", height - 8) +
                attr("text-anchor", "middle"),
            "destination rank");
  h.element("text",
            attr("class", "axl") + attr("x", 12) + attr("y", top + side / 2) +
                attr("text-anchor", "middle") +
                attr("transform",
                     "rotate(-90 12 " + std::to_string(static_cast<int>(top + side / 2)) + ")"),
            "source rank");
  h.close();
}

void heatmap_legend(HtmlOut& h, double vmax, const std::function<std::string(double)>& fmt) {
  h.open("div", attr("class", "legend"));
  h.element("span", "", call_fmt(fmt, 0) + " ");
  for (int q = 0; q < 9; ++q)
    h.element("span", attr("class", std::string("sw q") + std::to_string(q)), "");
  h.element("span", "", std::string(" ") + call_fmt(fmt, vmax));
  h.element("span", attr("class", "sep"), " \u00b7 ");
  h.open("span", attr("class", "key"));
  h.element("span", attr("class", "sw mkkey"), "");
  h.text(" slow link");
  h.close();
  h.close();
}

void mini_bar(HtmlOut& h, double frac, const char* css_class) {
  if (!std::isfinite(frac)) frac = 0;
  frac = std::clamp(frac, 0.0, 1.0);
  h.open("span", attr("class", "bar"));
  h.element("span",
            attr("class", css_class) + attr("style", "width:" + fmt_num(frac * 100, 1) + "%"), "");
  h.close();
}

void diff_bar(HtmlOut& h, double value, double max_abs) {
  const double w = 120, half = w / 2;
  double f = (max_abs > 0 && std::isfinite(value)) ? std::clamp(value / max_abs, -1.0, 1.0) : 0;
  const double len = std::fabs(f) * (half - 1);
  h.open("svg", attr("class", "diff") + attr("width", w) + attr("height", 12) +
                    attr("viewBox", "0 0 120 12"));
  if (len > 0)
    h.empty("rect", attr("class", f > 0 ? "worse" : "better") +
                        attr("x", f > 0 ? half : half - len) + attr("y", 1) + attr("width", len) +
                        attr("height", 10));
  h.empty("line", attr("class", "axis") + attr("x1", half) + attr("x2", half) + attr("y1", 0) +
                      attr("y2", 12));
  h.close();
}

}  // namespace cs::report
