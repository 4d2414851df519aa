#include "report/cluster_report.h"

#include "report/cluster_sections.h"
#include "report/display_format.h"
#include "report/report_page.h"
#include "report/table_view.h"

namespace cs::report {

ClusterContext make_cluster_context(const ClusterReportInput& in) {
  ClusterContext ctx{in, {}, {}};
  const ColumnRef rank(in.slow_ranks, "rank");
  for (size_t r = 0; r < rows(in.slow_ranks); ++r)
    if (const long long v = rank.integer(r); v >= 0) ctx.slow_ranks.insert(v);
  const ColumnRef src(in.slow_links, "src_rank"), dst(in.slow_links, "dst_rank");
  for (size_t r = 0; r < rows(in.slow_links); ++r) {
    const long long s = src.integer(r), d = dst.integer(r);
    if (s >= 0 && d >= 0) ctx.slow_links.insert({s, d});
  }
  return ctx;
}

std::string render_cluster_report_html(const ClusterReportInput& in) {
  const ClusterContext ctx = make_cluster_context(in);
  HtmlOut h;
  std::vector<std::string> sub;
  if (!in.input_path.empty()) sub.push_back("Input: " + in.input_path);
  begin_page(h, "clusterscope \u2014 cluster report", sub);
  nav_bar(h, {{"overview", "Overview"},
              {"findings", "Findings"},
              {"steps", "Step time"},
              {"matrix", "Communication matrix"},
              {"wait", "Wait ratio"},
              {"operators", "Top operators"}});
  h.open("main");
  section_overview(h, ctx);
  section_findings(h, ctx);
  section_step_trace(h, ctx);
  section_matrix(h, ctx);
  section_wait(h, ctx);
  section_operators(h, ctx);
  end_page(h);
  return h.finish();
}

bool write_cluster_report_html(const ClusterReportInput& in, const std::string& path,
                               io::Diagnostics& diag) {
  return write_text_file(path, render_cluster_report_html(in), diag);
}

}  // namespace cs::report
