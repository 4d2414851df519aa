#include "report/report_page.h"

#include "report/page_script.h"
#include "version.h"

namespace cs::report {

namespace {

// Colours: series s0..s3 (computing, communication, free, extra), heatmap q0..q8 (pale to dark
// blue: higher bandwidth is darker), red for anything flagged.
constexpr std::string_view kCss = R"CSS(
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1f2328;background:#f6f8fa}
header.top{background:#24292f;color:#fff;padding:18px 28px}
header.top h1{margin:0 0 4px;font-size:22px;font-weight:600}
header.top p{margin:0;color:#c9d1d9;font-size:13px;word-break:break-all}
nav{position:sticky;top:0;background:#fff;border-bottom:1px solid #d0d7de;padding:8px 28px;z-index:2}
nav a{margin-right:18px;color:#0969da;text-decoration:none;font-weight:500}
main{padding:8px 28px 28px;max-width:1320px}
section{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:14px 18px;margin:16px 0}
h2{margin:0 0 10px;font-size:18px}
h3{margin:14px 0 6px;font-size:15px}
p.note{color:#57606a;margin:6px 0}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:6px 0 10px}
.card{border:1px solid #d0d7de;border-radius:6px;padding:8px 12px;min-width:130px;background:#f6f8fa}
.card .v{font-size:20px;font-weight:600}
.card .l{color:#57606a;font-size:12px}
table{border-collapse:collapse;margin:6px 0;font-size:13px;display:block;max-width:100%;overflow-x:auto}
th.sortable{cursor:pointer;user-select:none;white-space:nowrap}
th.sortable:hover{background:#eaeef2}
th[aria-sort=ascending]::after{content:" \25B2";font-size:9px}
th[aria-sort=descending]::after{content:" \25BC";font-size:9px}
.tsearch{margin:6px 0 2px}
.tsearch input{font:inherit;padding:3px 8px;border:1px solid #d0d7de;border-radius:6px;width:300px;max-width:60%;margin-right:8px}
td.rk,[data-rank]{cursor:pointer}
td.rk{color:#0969da;text-decoration:underline dotted}
aside#drill{position:fixed;top:0;right:0;bottom:0;width:min(640px,60vw);overflow:auto;background:#fff;border-left:2px solid #d0d7de;box-shadow:-4px 0 16px rgba(0,0,0,.15);padding:14px 18px;z-index:5;display:none}
aside#drill button.close{float:right;font-size:20px;border:0;background:none;cursor:pointer}
th,td{border-bottom:1px solid #eaeef2;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600;position:sticky;top:0}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.key{max-width:520px;min-width:90px;overflow-wrap:break-word}
tr.flag td{background:#ffebe9}
.bar{display:inline-block;width:90px;height:10px;background:#eaeef2;border-radius:2px;vertical-align:middle}
.bar span{display:block;height:10px;border-radius:2px}
.mb{background:#54aeff}.cv{background:#fb8f44}.cvh{background:#cf222e}
ul.findings{margin:4px 0;padding-left:20px}
ul.findings li{margin:4px 0}
li.bad::marker{color:#cf222e}
li.warn::marker{color:#bf8700}
li.ok::marker{color:#1a7f37}
li.warnbox{font-weight:600;color:#cf222e}
.ev{color:#57606a;font-size:12px}
pre.summary{background:#f6f8fa;border:1px solid #d0d7de;padding:8px;overflow:auto;font-size:12px}
.legend{margin:4px 0 2px;font-size:12px;color:#57606a}
.legend .key{margin-right:14px;white-space:nowrap}
.sw{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px;border-radius:2px}
svg.chart{max-width:100%;height:auto;display:block}
svg.chart text{font-size:10px;fill:#57606a}
svg.chart text.axl{font-size:11px;fill:#1f2328}
line.grid{stroke:#eaeef2}
line.axis{stroke:#8c959f}
line.wh{stroke:#1f2328;stroke-width:1}
.s0{fill:#54aeff;background:#54aeff}.s1{fill:#fb8f44;background:#fb8f44}.s2{fill:#d0d7de;background:#d0d7de}.s3{fill:#8250df;background:#8250df}
polyline.dline{fill:none;stroke:#0969da;stroke-width:1.5}
svg.dist g.fl circle{fill:#cf222e}svg.dist g.fl text{fill:#cf222e;font-weight:600}
svg.dist g.hi circle{fill:#1f2328}
rect.flag{fill:none;stroke:#cf222e;stroke-width:1.5}
path.flagmark{fill:#cf222e}
.flagkey{background:#fff;border:2px solid #cf222e}
rect.hbg{fill:#f6f8fa;stroke:#d0d7de}
.q0{fill:#f7fbff;background:#f7fbff}.q1{fill:#deebf7;background:#deebf7}.q2{fill:#c6dbef;background:#c6dbef}
.q3{fill:#9ecae1;background:#9ecae1}.q4{fill:#6baed6;background:#6baed6}.q5{fill:#4292c6;background:#4292c6}
.q6{fill:#2171b5;background:#2171b5}.q7{fill:#08519c;background:#08519c}.q8{fill:#08306b;background:#08306b}
rect.mk{fill:none;stroke:#cf222e;stroke-width:2}
.mkkey{background:#fff;border:2px solid #cf222e}
.heats{display:flex;flex-wrap:wrap;gap:18px}
.heats figure{margin:0}
.heats figcaption{font-size:12px;color:#57606a;max-width:520px;overflow-wrap:anywhere}
.hm{display:flex;flex-wrap:wrap;gap:14px;align-items:flex-start}
.hm figure{margin:0;max-width:100%}
.hm canvas{max-width:100%;cursor:pointer;image-rendering:pixelated;border:1px solid #d0d7de}
.hmtip{font-size:12px;color:#1f2328;min-height:16px}
.hmkey{display:inline-block;width:120px;height:10px;vertical-align:-1px;background:linear-gradient(90deg,#2166ac,#f7f7f7,#b2182b)}
.gpick{margin:6px 0}.gpick select{font:inherit;max-width:100%}
tr.picked td{outline:2px solid #0969da}
aside#drill th{position:static}
.legend .sep{margin:0 6px}
svg.diff{vertical-align:middle}
rect.worse{fill:#cf222e}rect.better{fill:#1a7f37}
td.worse{color:#cf222e}td.better{color:#1a7f37}
footer{color:#57606a;font-size:12px;padding:0 28px 24px}
@media print{nav{display:none}th{position:static}}
)CSS";

}  // namespace

void begin_page(HtmlOut& h, std::string_view title, const std::vector<std::string>& subtitle) {
  h.raw("<!DOCTYPE html>\n");
  h.open("html", attr("lang", "en"));
  h.open("head");
  h.empty("meta", attr("charset", "utf-8"));
  h.empty("meta",
          attr("name", "viewport") + attr("content", "width=device-width, initial-scale=1"));
  h.element("title", "", title);
  h.open("style");
  h.raw(kCss);
  h.close();
  h.close();  // head
  h.open("body");
  h.open("header", attr("class", "top"));
  h.element("h1", "", title);
  for (const auto& s : subtitle) h.element("p", "", s);
  h.close();
}

void end_page(HtmlOut& h) {
  while (h.depth() > 2) h.close();  // back to <html><body>
  page_script(h);
  h.element(
      "footer", "",
      std::string("Written by clusterscope ") + CLUSTERSCOPE_VERSION +
          ". Self-contained page, no network: click a column header to sort, type in a table's box "
          "to filter, click a rank for its details; hover a bar, cell or shortened name for more.");
  h.close_to(0);
  h.raw("\n");
}

void nav_bar(HtmlOut& h, const std::vector<std::pair<std::string, std::string>>& links) {
  h.open("nav");
  for (const auto& [id, label] : links) h.element("a", attr("href", "#" + id), label);
  h.close();
}

void begin_section(HtmlOut& h, std::string_view id, std::string_view title) {
  h.open("section", attr("id", id));
  h.element("h2", "", title);
}

void note(HtmlOut& h, std::string_view text) {
  h.element("p", attr("class", "note"), text);
}

void not_computed(HtmlOut& h, std::string_view what) {
  note(h, std::string(what) + ": not computed in this mode.");
}

void stat_cards(HtmlOut& h, const std::vector<std::pair<std::string, std::string>>& cards) {
  h.open("div", attr("class", "cards"));
  for (const auto& [label, value] : cards) {
    if (value.empty()) continue;
    h.open("div", attr("class", "card"));
    h.element("div", attr("class", "v"), value);
    h.element("div", attr("class", "l"), label);
    h.close();
  }
  h.close();
}

void table_head(HtmlOut& h, const std::vector<std::string>& headers) {
  h.open("thead");
  h.open("tr");
  for (const auto& s : headers) {
    if (!s.empty() && s[0] == '#')
      h.element("th", attr("class", "n"), std::string_view(s).substr(1));
    else
      h.element("th", "", s);
  }
  h.close();
  h.close();
}

void num_cell(HtmlOut& h, std::string_view text) {
  h.element("td", attr("class", "n"), text);
}

}  // namespace cs::report
