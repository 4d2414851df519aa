#include "cluster/cluster_outputs.h"

#include "cluster/cluster_communication.h"
#include "cluster/cluster_matrix.h"
#include "cluster/cluster_step_trace.h"
#include "cluster/comm_summary.h"
#include "cluster/comm_tables.h"
#include "cluster/communication_groups.h"
#include "cluster/diagnosis_summary.h"
#include "cluster/link_observations.h"
#include "cluster/operators_topn.h"
#include "cluster/slow_link.h"
#include "cluster/slow_rank.h"
#include "cluster/slow_transfer.h"
#include "stats/topn.h"

namespace cs::cluster {

namespace {

struct Wants {
  bool groups, communication, matrix, step_trace, operators, diagnosis;
};

Wants wants_for(const std::string& mode) {
  const bool all = mode == "all";
  const bool diag = all || mode == "diagnosis";
  return Wants{
      mode != "operators",
      all || mode == "communication_time" || diag,
      all || mode == "communication_matrix" || diag,
      all || mode == "step_trace" || diag,
      all || mode == "operators" || diag,
      diag,
  };
}

}  // namespace

AnalysisResults run_analyses(const OutputContext& ctx, PhaseLog& log) {
  (void)log;
  AnalysisResults r;
  const auto& ranks = ctx.loaded.ranks;
  const Wants want = wants_for(ctx.opts.mode);
  const bool json = ctx.opts.formats.count("json") > 0;
  io::Diagnostics& notes = r.notes;
  auto path = [&](const char* name) { return ctx.out_dir + "/" + name; };

  CommGroups groups;
  if (want.groups) {
    GroupOptions g;
    // msprof-analyze reads groups from the files its mode analyses.
    g.use_communication = ctx.opts.mode != "communication_matrix";
    g.use_matrix = ctx.opts.mode != "communication_time";
    groups = build_comm_groups(ranks, g, notes);
    if (json) write_communication_group_json(path("communication_group.json"), groups, ctx.diag);
  }
  if (want.communication) {
    if (json)
      write_cluster_communication_json(path("cluster_communication.json"), ranks, groups, ctx.diag);
    r.tables.push_back(communication_ops_table(ranks, groups));
    r.tables.push_back(communication_bandwidth_table(ranks, groups));
  }
  std::vector<GlobalLink> links;
  if (want.matrix) {
    // Local ranks map to global ones through profiler_metadata.json first, self links second.
    MatrixOptions mopts;
    mopts.use_metadata_ranks = true;
    links = merge_matrix_links(ranks, groups, notes, mopts);
    if (json) {
      io::Diagnostics dup;  // the same warnings as merge_matrix_links above
      write_cluster_communication_matrix_json(path("cluster_communication_matrix.json"), ranks,
                                              groups, dup, io::JsonStyle::python(), mopts);
      for (const auto& d : dup.items())
        if (d.severity == io::Severity::kError) ctx.diag.add(d);
    }
    r.tables.push_back(communication_matrix_table(links));
  }
  if (want.step_trace) {
    if (json)
      write_cluster_step_trace_csv(path("cluster_step_trace_time.csv"), ranks, groups, notes);
    r.tables.push_back(step_trace_table(ranks));
  }
  std::vector<stats::TopNRow> by_cv;
  if (want.operators) {
    const stats::OperatorTable merged = merge_operators(ranks);
    const auto order = stats::parse_order_by(ctx.opts.order_by).value_or(stats::OrderBy::kTotal);
    // Pipeline stages make the cross-rank CV peer-relative (stats/topn.h).
    const auto stages = rank_stages(ranks, want.groups ? &groups : nullptr);
    r.tables.push_back(
        operators_topn_table(merged, static_cast<size_t>(ctx.opts.top_n), order, stages));
    by_cv = stats::select_topn(merged, 5, stats::OrderBy::kCv, stages);
  }
  if (want.diagnosis) {
    r.tables.push_back(comm_rank_summary_table(ranks));
    r.tables.push_back(comm_transport_summary_table(ranks));
    const auto slow_ranks = find_slow_ranks(ranks);
    const auto slow_links = find_slow_links(link_observations(links));
    // Slow transfers per op class; links named only when the matrix agrees (slow_transfer.h).
    const auto slow_transfers = find_slow_transfers(ranks, slow_links);
    r.tables.push_back(slow_ranks_table(slow_ranks));
    r.tables.push_back(slow_links_table(slow_links));
    r.tables.push_back(slow_transfers_table(slow_transfers));
    r.summary = diagnosis_summary(slow_ranks, slow_links, by_cv, slow_transfers);
  }
  return r;
}

}  // namespace cs::cluster
