#include "report/compare_page/compare_report.h"

#include <cmath>

#include "report/compare_page/compare_regressions.h"
#include "report/compare_page/diff_table.h"
#include "report/display_format.h"
#include "report/report_page.h"
#include "report/table_view.h"

namespace cs::report {

namespace {

void more_note(HtmlOut& h, size_t left_out, const char* file) {
  if (left_out)
    note(h, "\u2026 and " + std::to_string(left_out) + " smaller differences: see " + file + ".");
}

// The E2E row of overall_metrics, if any: (base ms, comparison ms).
bool e2e_times(const io::Table* t, double& base, double& cmp) {
  const ColumnRef metric(t, "metric"), b(t, "base_ms"), c(t, "comparison_ms");
  for (size_t r = 0; r < rows(t); ++r)
    if (metric.str(r).find("E2E") != std::string::npos) {
      base = b.num(r);
      cmp = c.num(r);
      return std::isfinite(base) && std::isfinite(cmp);
    }
  return false;
}

void overview(HtmlOut& h, const CompareReportInput& in) {
  begin_section(h, "overview", "Overview");
  double base = 0, cmp = 0;
  std::vector<std::pair<std::string, std::string>> cards;
  const bool have = e2e_times(in.overall_metrics, base, cmp);
  if (have) {
    cards.push_back({"E2E time, base", fmt_us(base * 1000)});
    cards.push_back({"E2E time, comparison", fmt_us(cmp * 1000)});
    cards.push_back(
        {"difference", std::string(cmp >= base ? "+" : "") + fmt_us((cmp - base) * 1000)});
  }
  if (in.seconds > 0) cards.push_back({"time taken", fmt_num(in.seconds, 2) + " s"});
  stat_cards(h, cards);
  h.open("ul", attr("class", "findings"));
  // Loud first: the runs differ in shape or steps.
  for (const auto& w : in.warnings) h.element("li", attr("class", "bad warnbox"), w);
  if (!in.scope_text.empty()) h.element("li", attr("class", "warn"), in.scope_text);
  // What regressed, by how much and where.
  regression_findings(h, in);
  if (have && base > 0) {
    const double rel = cmp / base - 1;
    const char* cls = std::fabs(rel) < 0.02 ? "ok" : (rel > 0 ? "bad" : "ok");
    h.element("li", attr("class", cls),
              std::string("The comparison run takes ") + fmt_pct(std::fabs(rel)) +
                  (rel > 0 ? " longer" : " less") + " end to end than the base.");
  }
  const ColumnRef metric(in.overall_metrics, "metric"), diff(in.overall_metrics, "diff_ms");
  size_t worst = SIZE_MAX;
  for (size_t r = 0; r < rows(in.overall_metrics); ++r) {
    if (metric.str(r).find("E2E") != std::string::npos) continue;
    if (!std::isfinite(diff.num(r))) continue;
    if (worst == SIZE_MAX || diff.num(r) > diff.num(worst)) worst = r;
  }
  if (worst != SIZE_MAX && diff.num(worst) > 0)
    h.element("li", attr("class", "warn"),
              "The largest increase is in " + metric.str(worst) + ": +" +
                  fmt_us(diff.num(worst) * 1000) + ".");
  h.close();
  if (!in.summary_text.empty()) h.element("pre", attr("class", "summary"), in.summary_text);
  h.close();
}

}  // namespace

std::string render_compare_report_html(const CompareReportInput& in) {
  HtmlOut h;
  std::vector<std::string> sub;
  if (!in.base_path.empty()) sub.push_back("Base: " + in.base_path);
  if (!in.comparison_path.empty()) sub.push_back("Comparison: " + in.comparison_path);
  begin_page(h, "clusterscope \u2014 comparison report", sub);
  nav_bar(h, {{"overview", "Overview"},
              {"regressions", "Regressions"},
              {"overall", "Overall metrics"},
              {"kernels", "Kernels"},
              {"operators", "Operators"},
              {"communication", "Communication"}});
  h.open("main");
  overview(h, in);

  begin_section(h, "regressions", "Regressions (run vs run)");
  if (in.regressions) {
    more_note(h,
              diff_table(h, *in.regressions,
                         {{{"what", "what", CellKind::kText},
                           {"key", "key", CellKind::kText},
                           {"where", "where", CellKind::kText},
                           {"base", "base_us", CellKind::kUs},
                           {"comparison", "comparison_us", CellKind::kUs},
                           {"diff", "diff_us", CellKind::kUs},
                           {"comparison / base", "diff_ratio", CellKind::kRatio},
                           {"significant", "significant", CellKind::kText}},
                          "diff_us",
                          30,
                          false}),
              "regressions.csv");
  } else {
    not_computed(h, "Regressions (only when both sides are cluster directories)");
  }
  h.close();
  begin_section(h, "overall", "Overall metrics");
  if (in.overall_metrics) {
    note(h, "Positive differences (red) mean the comparison spends more time than the base.");
    diff_table(h, *in.overall_metrics,
               {{{"metric", "metric", CellKind::kText},
                 {"base", "base_ms", CellKind::kMs},
                 {"base share", "base_ratio", CellKind::kPercent},
                 {"base count", "base_count", CellKind::kCount},
                 {"comparison", "comparison_ms", CellKind::kMs},
                 {"comparison share", "comparison_ratio", CellKind::kPercent},
                 {"comparison count", "comparison_count", CellKind::kCount},
                 {"diff", "diff_ms", CellKind::kMs},
                 {"comparison / base", "diff_ratio", CellKind::kRatio}},
                "diff_ms",
                200,
                false});
  } else {
    not_computed(h, "Overall metrics");
  }
  h.close();

  begin_section(h, "kernels", "Largest kernel differences");
  if (in.kernel_compare) {
    more_note(h,
              diff_table(h, *in.kernel_compare,
                         {{{"kernel", "key", CellKind::kText},
                           {"base total", "base_total_us", CellKind::kUs},
                           {"base calls", "base_count", CellKind::kCount},
                           {"comparison total", "comparison_total_us", CellKind::kUs},
                           {"comparison calls", "comparison_count", CellKind::kCount},
                           {"diff", "diff_us", CellKind::kUs},
                           {"comparison / base", "diff_ratio", CellKind::kRatio}},
                          "diff_us"}),
              "kernel_compare.csv");
  } else {
    not_computed(h, "Kernel comparison");
  }
  h.close();

  begin_section(h, "operators", "Largest operator differences");
  if (in.operator_compare) {
    more_note(h,
              diff_table(h, *in.operator_compare,
                         {{{"order", "order", CellKind::kCount},
                           {"base operator", "base_op", CellKind::kText},
                           {"comparison operator", "comparison_op", CellKind::kText},
                           {"base device time", "base_device_us", CellKind::kUs},
                           {"comparison device time", "comparison_device_us", CellKind::kUs},
                           {"diff", "diff_us", CellKind::kUs},
                           {"comparison / base", "diff_ratio", CellKind::kRatio}},
                          "diff_us"}),
              "operator_compare.csv");
  } else {
    not_computed(h, "Operator comparison");
  }
  h.close();

  begin_section(h, "communication", "Communication differences");
  if (in.communication_compare) {
    more_note(h,
              diff_table(h, *in.communication_compare,
                         {{{"collective", "op_type", CellKind::kText},
                           {"base calls", "base_calls", CellKind::kCount},
                           {"base total", "base_total_us", CellKind::kUs},
                           {"comparison calls", "comparison_calls", CellKind::kCount},
                           {"comparison total", "comparison_total_us", CellKind::kUs},
                           {"diff", "diff_us", CellKind::kUs},
                           {"comparison / base", "diff_ratio", CellKind::kRatio}},
                          "diff_us",
                          50}),
              "communication_compare.csv");
  } else {
    not_computed(h, "Communication comparison");
  }
  h.close();

  end_page(h);
  return h.finish();
}

bool write_compare_report_html(const CompareReportInput& in, const std::string& path,
                               io::Diagnostics& diag) {
  return write_text_file(path, render_compare_report_html(in), diag);
}

}  // namespace cs::report
