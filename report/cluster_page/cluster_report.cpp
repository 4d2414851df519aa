#include "report/cluster_page/cluster_report.h"

#include <algorithm>
#include <map>
#include "report/cluster_page/cluster_sections.h"

#include "report/display_format.h"
#include "report/page_script.h"
#include "report/report_page.h"
#include "report/table_view.h"

namespace cs::report {

ClusterContext make_cluster_context(const ClusterReportInput& in) {
  ClusterContext ctx{in, {}, {}, {}};
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
  // Coordinates and groups from the group naming, hosts from the rank directories' names.
  std::map<std::string, size_t> group_index;
  for (const auto& [hash, label] : ctx.groups.label) {
    group_index.emplace(hash, d.groups.size());
    d.groups.emplace_back(label, hash);
  }
  for (const auto& [rank, c] : ctx.groups.coords) {
    auto& r = d.ranks[rank];
    r.tp = c.tp, r.dp = c.dp, r.stage = c.stage;
  }
  for (const auto& [rank, hashes] : ctx.groups.of_rank)
    for (const auto& hash : hashes) d.ranks[rank].groups.push_back(group_index[hash]);
  std::map<std::string, size_t> host_index;
  // The manifest's paths, or its digest's hosts (manifest_digest.h).
  const ColumnRef mrank(ctx.in.manifest, "rank"), mpath(ctx.in.manifest, "path"),
      mhost(ctx.in.manifest, "host");
  for (size_t r = 0; r < rows(ctx.in.manifest); ++r) {
    const long long rk = mrank.integer(r);
    const std::string host = mhost ? mhost.str(r) : host_of_rank_dir(mpath.str(r));
    if (rk < 0 || host.empty()) continue;
    const auto [it, added] = host_index.emplace(host, d.hosts.size());
    if (added) d.hosts.push_back(host);
    d.ranks[rk].host = static_cast<long long>(it->second);
  }
  return d;
}

}  // namespace

std::string host_of_rank_dir(std::string_view path) {
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  std::string_view base = path.substr(path.find_last_of('/') + 1);
  for (const std::string_view suffix : {"_ascend_pt", "_ascend_ms"}) {
    if (base.size() <= suffix.size() || base.substr(base.size() - suffix.size()) != suffix)
      continue;
    base.remove_suffix(suffix.size());
    // {worker}_{pid}_{timestamp}: drop the trailing all-digit fields.
    while (true) {
      const size_t u = base.find_last_of('_');
      if (u == std::string_view::npos || u + 1 == base.size()) break;
      const std::string_view tail = base.substr(u + 1);
      if (tail.find_first_not_of("0123456789") != std::string_view::npos) break;
      base = base.substr(0, u);
    }
    return std::string(base);
  }
  return "";
}

std::string render_cluster_report_html(const ClusterReportInput& in) {
  ClusterContext ctx = make_cluster_context(in);
  ctx.groups = name_groups(group_ranks(in));
  HtmlOut h;
  std::vector<std::string> sub;
  if (!in.input_path.empty()) sub.push_back("Input: " + in.input_path);
  begin_page(h, "clusterscope \u2014 cluster report", sub);
  std::vector<std::pair<std::string, std::string>> nav = {
      {"overview", "Overview"},      {"findings", "Findings"},           {"ranks", "Every rank"},
      {"steps", "Step time"},        {"matrix", "Communication matrix"}, {"wait", "Wait ratio"},
      {"operators", "Top operators"}};
  if (in.memory_ranks) nav.push_back({"memory", "Memory"});
  nav.push_back({"host", "Host side"});
  nav_bar(h, nav);
  page_data(h, drill_data(ctx));
  h.open("main");
  section_overview(h, ctx);
  section_findings(h, ctx);
  section_distribution(h, ctx);
  section_step_trace(h, ctx);
  section_matrix(h, ctx);
  section_wait(h, ctx);
  section_operators(h, ctx);
  section_memory(h, ctx);
  section_host(h, ctx);
  end_page(h);
  return h.finish();
}

bool write_cluster_report_html(const ClusterReportInput& in, const std::string& path,
                               io::Diagnostics& diag) {
  return write_text_file(path, render_cluster_report_html(in), diag);
}

}  // namespace cs::report
