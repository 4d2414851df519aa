// Building blocks of the HTML reports: escaping, the balanced emitter, display formatting,
// rank bucketing, and the test's own well-formedness checker.
#include <gtest/gtest.h>

#include <cmath>

#include "report/display_format.h"
#include "report/html_check.h"
#include "report/html_out.h"
#include "report/rank_bars.h"
#include "report/svg_charts.h"

using namespace cs::report;

TEST(HtmlEscape, EscapesMarkupAndDropsControlBytes) {
  EXPECT_EQ(html_escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
  EXPECT_EQ(html_escape(std::string("x\x01y\tz\n", 6)), "xy\tz\n");
  EXPECT_EQ(html_escape("MatMul \xc2\xb5s"), "MatMul \xc2\xb5s");  // UTF-8 kept
  EXPECT_EQ(attr("title", "x<y"), " title=\"x&lt;y\"");
  EXPECT_EQ(attr("x", 1.5), " x=\"1.5\"");
  EXPECT_EQ(attr("x", 2.0), " x=\"2\"");
  EXPECT_EQ(attr("x", -0.001), " x=\"0\"");
  EXPECT_EQ(attr("x", std::nan("")), " x=\"0\"");
}

TEST(HtmlOut, ClosesWhatItOpened) {
  HtmlOut h;
  h.open("div", attr("class", "a"));
  h.open("p");
  h.text("1 < 2");
  h.close();
  h.empty("br");
  h.open("span");
  EXPECT_EQ(h.depth(), 2u);
  const std::string s = h.finish();
  EXPECT_EQ(s, "<div class=\"a\"><p>1 &lt; 2</p><br/><span></span></div>");
  EXPECT_EQ(cs::report::test::check_html(s), "");
}

TEST(HtmlCheck, CatchesBrokenMarkup) {
  using cs::report::test::check_html;
  EXPECT_NE(check_html("<div><p></div></p>"), "");
  EXPECT_NE(check_html("<div>"), "");
  EXPECT_NE(check_html("<p>a < b</p>"), "");
  EXPECT_NE(check_html("<p title=\"x>a</p>"), "");
  EXPECT_NE(check_html("</p>"), "");
  EXPECT_EQ(check_html("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>a>b{}</style>"
                       "</head><body><svg><rect x=\"1\"/></svg></body></html>"),
            "");
}

TEST(DisplayFormat, HumanUnits) {
  EXPECT_EQ(fmt_num(1234567.891, 1), "1,234,567.9");
  EXPECT_EQ(fmt_num(-0.5, 2), "-0.50");
  EXPECT_EQ(fmt_num(-0.0001, 2), "0.00");
  EXPECT_EQ(fmt_num(999, 0), "999");
  EXPECT_EQ(fmt_num(std::nan(""), 2), "\u2013");
  EXPECT_EQ(fmt_us(812.34), "812.3 \u00b5s");
  EXPECT_EQ(fmt_us(12345), "12.35 ms");
  EXPECT_EQ(fmt_us(3.2e6), "3.20 s");
  EXPECT_EQ(fmt_bytes(12), "12 B");
  EXPECT_EQ(fmt_bytes(1500), "1.5 kB");
  EXPECT_EQ(fmt_bytes(2.5e9), "2.50 GB");
  EXPECT_EQ(fmt_pct(0.1234), "12.3%");
  EXPECT_DOUBLE_EQ(nice_ceiling(0.87), 1.0);
  EXPECT_DOUBLE_EQ(nice_ceiling(3400), 4000.0);
  EXPECT_DOUBLE_EQ(nice_ceiling(120), 120.0);
  EXPECT_DOUBLE_EQ(nice_ceiling(103), 120.0);
  EXPECT_DOUBLE_EQ(nice_ceiling(9.1), 10.0);
  EXPECT_DOUBLE_EQ(nice_ceiling(0), 1.0);
}

TEST(RankBars, OneBarPerRankWhenSmall) {
  std::vector<RankPoint> pts = {{2, {1, 2}, false}, {0, {5, 1}, true}, {1, {3, 3}, false}};
  const auto bars = bucket_ranks(pts, 8);
  ASSERT_EQ(bars.size(), 3u);
  EXPECT_EQ(bars[0].first_rank, 0);
  EXPECT_EQ(bars[0].flagged, 1u);
  EXPECT_DOUBLE_EQ(bars[0].total_max, 6);
  EXPECT_EQ(bars[2].label(), "2");
}

TEST(RankBars, BucketsKeepMeanMedianAndExtremes) {
  std::vector<RankPoint> pts;
  for (int r = 0; r < 1000; ++r) pts.push_back({r, {static_cast<double>(r % 10), 1.0}, r == 517});
  const auto bars = bucket_ranks(pts, 100);
  ASSERT_EQ(bars.size(), 100u);
  EXPECT_EQ(bars[51].first_rank, 510);
  EXPECT_EQ(bars[51].last_rank, 519);
  EXPECT_EQ(bars[51].label(), "510\u2013519");
  EXPECT_EQ(bars[51].count, 10u);
  EXPECT_EQ(bars[51].flagged, 1u);
  EXPECT_DOUBLE_EQ(bars[51].parts[0], 4.5);
  EXPECT_DOUBLE_EQ(bars[51].total_min, 1);
  EXPECT_DOUBLE_EQ(bars[51].total_max, 10);
  EXPECT_DOUBLE_EQ(bars[51].total_median, 5.5);
  EXPECT_EQ(bars[51].max_rank, 519);
  EXPECT_EQ(bars[50].flagged, 0u);
  EXPECT_TRUE(bucket_ranks({}, 10).empty());
}

TEST(SvgCharts, HeatmapMarksCellsAndSkipsEmptyOnes) {
  HeatGrid g;
  g.n = 2;
  g.labels = {"0", "1"};
  g.values = {std::nan(""), 10.0, 2.0, std::nan("")};
  g.marked = {0, 0, 1, 0};
  HtmlOut h;
  heatmap_chart(
      h, g, 10.0, [](double v) { return std::to_string(static_cast<int>(v)); }, "t");
  const std::string s = h.finish();
  EXPECT_EQ(cs::report::test::check_html(s), "");
  EXPECT_NE(s.find("class=\"q8\""), std::string::npos);  // 10 of 10: darkest
  EXPECT_NE(s.find("class=\"q1\""), std::string::npos);  // 2 of 10
  EXPECT_NE(s.find("1 \u2192 0: 2"), std::string::npos);
  EXPECT_EQ(s.find("0 \u2192 0"), std::string::npos);  // no data, no cell
  size_t marks = 0;
  for (size_t p = 0; (p = s.find("class=\"mk\"", p)) != std::string::npos; ++p) ++marks;
  EXPECT_EQ(marks, 1u);
}
