#include "report/cluster_report.h"

#include <algorithm>
#include "report/cluster_sections.h"

#include "report/display_format.h"
#include "report/page_script.h"
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

namespace {

// The drill-down's data: the slow ranks and two healthy peers (the ranks of median step time
// among those not judged slow) for the merge command.
PageData drill_data(const ClusterContext& ctx) {
  PageData d;
  d.input_path = ctx.in.input_path;
  d.slow_ranks.assign(ctx.slow_ranks.begin(), ctx.slow_ranks.end());
  auto per_rank = rank_step_means(ctx.in.step_trace, nullptr);
  std::erase_if(per_rank, [&](const RankSteps& r) { return ctx.slow_ranks.count(r.rank) > 0; });
  std::sort(per_rank.begin(), per_rank.end(), [](const RankSteps& a, const RankSteps& b) {
    return a.total() < b.total() || (a.total() == b.total() && a.rank < b.rank);
  });
  if (!per_rank.empty()) d.peer = per_rank[per_rank.size() / 2].rank;
  if (per_rank.size() > 1) d.peer2 = per_rank[(per_rank.size() / 2 + 1) % per_rank.size()].rank;
  return d;
}

}  // namespace

std::string render_cluster_report_html(const ClusterReportInput& in) {
  const ClusterContext ctx = make_cluster_context(in);
  HtmlOut h;
  std::vector<std::string> sub;
  if (!in.input_path.empty()) sub.push_back("Input: " + in.input_path);
  begin_page(h, "clusterscope \u2014 cluster report", sub);
  nav_bar(h, {{"overview", "Overview"},
              {"findings", "Findings"},
              {"ranks", "Every rank"},
              {"steps", "Step time"},
              {"matrix", "Communication matrix"},
              {"wait", "Wait ratio"},
              {"operators", "Top operators"}});
  page_data(h, drill_data(ctx));
  h.open("main");
  section_overview(h, ctx);
  section_findings(h, ctx);
  section_distribution(h, ctx);
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
