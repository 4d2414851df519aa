#pragma once
// The sections of the cluster report (internal to report/). Each writes one <section>.

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "report/cluster_page/cluster_report.h"
#include "report/cluster_page/group_names.h"
#include "report/html_out.h"

namespace cs::report {

// What several sections need: the ranks and links judged slow.
struct ClusterContext {
  const ClusterReportInput& in;
  std::set<long long> slow_ranks;
  std::set<std::pair<long long, long long>> slow_links;  // (src, dst) global ranks
  GroupNaming groups;  // communication groups named by what they are, rank coordinates
};

// Every group's ranks: from comm_rank_summary (group, rank) and the matrix (digest or table).
std::map<std::string, std::vector<long long>> group_ranks(const ClusterReportInput& in);

// The host of a rank directory from its name ({host}_{pid}_{timestamp}_ascend_pt -> host), "" when
// the name does not follow the producer's pattern.
std::string host_of_rank_dir(std::string_view path);

// A group cell: its label, the hash on hover.
void group_cell(HtmlOut& h, const ClusterContext& ctx, const std::string& hash);

ClusterContext make_cluster_context(const ClusterReportInput& in);

// Ranks per chart before bucketing, and bars drawn when bucketing.
constexpr size_t kMaxRankBars = 256;
constexpr size_t kBucketBars = 128;

void section_overview(HtmlOut& h, const ClusterContext& ctx);
void section_findings(HtmlOut& h, const ClusterContext& ctx);
// msprof-analyze's diagnostic recipes beside the findings (recipe_agreement_view.cpp): nothing
// when the run has no recipe_agreement table.
void recipe_agreement_view(HtmlOut& h, const ClusterContext& ctx);
// Every rank at full resolution: sorted distributions with the slow ranks labelled.
void section_distribution(HtmlOut& h, const ClusterContext& ctx);
void section_step_trace(HtmlOut& h, const ClusterContext& ctx);
void section_matrix(HtmlOut& h, const ClusterContext& ctx);
void section_wait(HtmlOut& h, const ClusterContext& ctx);
void section_operators(HtmlOut& h, const ClusterContext& ctx);
// Memory across the ranks (memory_section.cpp); nothing when no memory table was given.
void section_memory(HtmlOut& h, const ClusterContext& ctx);
// The device's Free per rank by host cause and the host-heaviest operators (host_section.cpp).
void section_host(HtmlOut& h, const ClusterContext& ctx);
// The host side of the rank drill-down: each rank's Free per step and host-heaviest operators
// (host_drill.cpp).
void host_drill_data(HtmlOut& h, const ClusterContext& ctx);
// Rank x step heatmap of Computing against the stage median (canvas; drawn by the page script).
void rank_step_heatmap(HtmlOut& h, const ClusterContext& ctx);

// Per-rank mean over steps of computing, communication not overlapped and free (µs), as read from
// the step_trace table; empty when the table or its rank column is absent.
struct RankSteps {
  long long rank = 0;
  double computing = 0, comm = 0, free = 0;
  double total() const { return computing + comm + free; }
};
std::vector<RankSteps> rank_step_means(const io::Table* step_trace, size_t* steps_out);

// Per-rank wait and synchronization ratios from comm_rank_summary: sum(wait) / sum(wait + transit)
// when those columns exist, else the mean of the ratio column.
struct RankWait {
  long long rank = 0;
  double wait_ratio = 0, sync_ratio = 0;
};
std::vector<RankWait> rank_wait_ratios(const io::Table* summary);
// The table rank_wait_ratios reads for the report: the ranks' totals when given, else
// comm_rank_summary (null when neither is).
const io::Table* rank_wait_table(const ClusterReportInput& in);

}  // namespace cs::report
