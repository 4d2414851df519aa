#include "cluster/analysis_steps.h"

#include "analysis/comm_matrix_table.h"
#include "analysis/comm_op_tables.h"
#include "analysis/comm_tables.h"
#include "analysis/diagnosis_summary.h"
#include "analysis/link_observations.h"
#include "analysis/operators_topn.h"
#include "msprof_analyze/documents/cluster_communication.h"
#include "msprof_analyze/documents/comm_batches.h"
#include "runtime/allocator_tuning.h"

namespace cs::cluster {

namespace {

std::string in_dir(const AnalysisOptions& opts, const char* name) {
  return opts.out_dir + "/" + name;
}

}  // namespace

void StepMessages::add(const io::Diagnostics& d) {
  for (const auto& item : d.items())
    (item.severity == io::Severity::kError ? output : notes).add(item);
}

GroupsResult groups_step(const std::vector<load::RankData>& ranks, const AnalysisOptions& opts) {
  GroupsResult r;
  documents::GroupOptions g;
  // msprof-analyze reads groups from the files its mode analyses.
  g.use_communication = opts.mode != Mode::kCommunicationMatrix;
  g.use_matrix = opts.mode != Mode::kCommunicationTime;
  g.threads = opts.threads;
  r.groups = documents::build_comm_groups(ranks, g, r.messages.notes);
  if (opts.json)
    documents::write_communication_group_json(in_dir(opts, "communication_group.json"), r.groups,
                                              r.messages.output);
  return r;
}

MatrixResult matrix_step(const AnalysisInputs& in, const AnalysisOptions& opts, bool observe,
                         TableSink& sink, report::MatrixDigestBuilder* digest) {
  MatrixResult r;
  documents::MatrixOptions mopts;
  mopts.use_metadata_ranks = true;  // profiler_metadata.json's ranks first, self links second
  mopts.batch_links = opts.matrix_batch_links;
  io::Diagnostics d;
  const documents::MatrixBatches batches(in.ranks, *in.groups, opts.threads, mopts.batch_links);
  const analysis::CommMatrixShape shape = analysis::comm_matrix_shape(batches.widths());
  const auto stream = sink.open_stream(shape.schema, shape.strings);
  if (observe && in.spill) r.observations.park_in(in.spill);
  documents::merge_cluster_matrix(
      opts.json ? in_dir(opts, "cluster_communication_matrix.json") : std::string(), batches,
      *in.groups, d,
      [&](documents::GlobalLinks&& batch) {
        if (observe) r.observations.add(batch);
        // The table's rows are built only when a file takes them or the report draws them.
        if (!stream->writes() && !digest) {
          stream->count_rows(batch.size());
          return;
        }
        // On every thread: the document's other threads wait for this batch meanwhile.
        for (io::Table& rows : analysis::communication_matrix_row_parts(batch, opts.threads)) {
          if (digest) digest->add(rows);
          stream->append(std::move(rows));
        }
      },  // then the batch's links go
      io::JsonStyle::python(), mopts, opts.threads);
  stream->close();
  if (const std::string& why = r.observations.park_problem(); !why.empty())
    d.warn("", 0,
           "the slow-link observations could not be parked on disk (" + why +
               "): they are held in memory instead",
           "the outputs are the same; a large job needs more memory this way");
  r.messages.add(d);
  return r;
}

LinkDiagnosis link_diagnosis_step(const AnalysisInputs& in,
                                  const analysis::LinkObservationSet& observations, int threads) {
  LinkDiagnosis r;
  r.slow_links =
      analysis::find_slow_links(observations, {}, &r.unjudged_links, &r.overflowed_links);
  analysis::SlowTransferOptions transfers;
  transfers.threads = threads;
  r.slow_transfers = analysis::find_slow_transfers(in.ranks, r.slow_links, transfers);
  return r;
}

StepMessages communication_step(const AnalysisInputs& in, const AnalysisOptions& opts,
                                TableSink& sink) {
  StepMessages r;
  const documents::CommBatches batches(in.ranks, *in.groups, opts.threads, opts.comm_batch_ops);
  const analysis::CommOpTableShapes shapes = analysis::comm_op_table_shapes(batches.widths());
  const auto ops = sink.open_stream(shapes.ops, shapes.ops_strings);
  const auto bandwidth = sink.open_stream(shapes.bandwidth, shapes.bandwidth_strings);
  size_t added = 0;
  auto add = [&](const documents::CommIndex& batch) {
    if (!ops->writes() && !bandwidth->writes()) {  // no file takes them (--format json)
      for (const documents::CommGroupEntry& ge : batch.groups)
        ops->count_rows(documents::comm_group_reports(ge));
      ++added;
      return;
    }
    // Beside the document, on the one thread it has; after it, on every thread (the document's
    // waiting for the next batch meanwhile).
    for (analysis::CommOpChunk& c :
         analysis::comm_op_chunks(batch, opts.tables_beside_documents ? 1 : opts.threads)) {
      ops->append(std::move(c.ops));
      bandwidth->append(std::move(c.bandwidth));
    }
    // Memory policy: from the second batch on, what the batches freed goes back to the system
    // as each one is handed on. Their blocks are rarely the sizes the next batch asks for, so
    // over many batches (21 at 16,384 ranks) the heap grows past its use; a job of one batch
    // gains nothing and pays no page faults for it.
    if (++added >= 2) runtime::release_freed_memory();
  };
  if (opts.json)
    documents::write_cluster_communication_json(in_dir(opts, "cluster_communication.json"), batches,
                                                r.output, io::JsonStyle::python(), opts.threads,
                                                add, opts.tables_beside_documents);
  // No document, or its file could not be opened (or failed before the end): the rest of the
  // tables from the batches not yet added.
  for (size_t b = added; b < batches.size(); ++b) add(batches.load(b, opts.threads).index);
  ops->close();
  bandwidth->close();
  return r;
}

io::Table step_trace_step(const AnalysisInputs& in) {
  return analysis::step_trace_table(in.ranks);
}

MsprofStepTraceResult msprof_step_trace_step(const AnalysisInputs& in,
                                             const AnalysisOptions& opts) {
  MsprofStepTraceResult r;
  if (!opts.step_trace_csv && !opts.keep_step_trace) return r;
  // Its notes are warnings; a failed write is an error (exit 1).
  io::Diagnostics d;
  documents::ClusterStepTrace t =
      documents::build_cluster_step_trace(in.ranks, *in.groups, d, opts.ranks_filtered);
  if (opts.step_trace_csv)
    documents::write_cluster_step_trace_csv(in_dir(opts, "cluster_step_trace_time.csv"), t, d);
  r.messages.add(d);
  if (opts.keep_step_trace) r.rows = std::move(t);
  return r;
}

OperatorsResult operators_step(const AnalysisInputs& in, const AnalysisOptions& opts) {
  OperatorsResult r;
  analysis::ParkedOperators merged = analysis::merge_operators_parked(in.ranks, in.spill);
  // Pipeline stages make the cross-rank CV peer-relative (stats/topn.h).
  const auto stages = analysis::rank_stages(in.ranks, in.groups);
  std::vector<stats::TopNRow> rows = analysis::operator_rows(merged, stages);
  if (const std::string& why = merged.samples->problem(); !why.empty()) {
    io::Diagnostics d;
    d.warn("", 0,
           "the operators' kernel durations could not be parked on disk (" + why +
               "): they are held in memory instead",
           "the outputs are the same; a large job needs more memory this way");
    r.messages.add(d);
  }
  merged = {};
  r.by_cv = stats::select_rows(rows, 5, stats::OrderBy::kCv);
  r.topn = analysis::operators_topn_table(std::move(rows), opts.top_n, opts.order_by);
  return r;
}

analysis::SlowRankAnalysis slow_ranks_step(
    const AnalysisInputs& in, const std::vector<analysis::SlowLinkFinding>& slow_links) {
  return analysis::analyze_slow_ranks(in.ranks, analysis::rank_stages(in.ranks, in.groups),
                                      slow_links);
}

std::string diagnosis_text(const analysis::SlowRankAnalysis& slow_ranks, const LinkDiagnosis& links,
                           const std::vector<stats::TopNRow>& by_cv) {
  std::string s = analysis::diagnosis_summary(slow_ranks.findings, links.slow_links, by_cv,
                                              links.slow_transfers);
  if (!slow_ranks.stage_imbalance.empty()) s += slow_ranks.stage_imbalance + "\n";
  if (links.unjudged_links > 0)
    s += std::to_string(links.unjudged_links) +
         " link(s) carried too little data to judge (under 1 MB, or fewer than 3 transfers and "
         "under 16 MB in all): no verdict on them.\n";
  if (links.overflowed_links > 0)
    s += std::to_string(links.overflowed_links) +
         " link(s) have sizes whose sum is beyond 1.8e308 MB (not a finite number): their size "
         "and bandwidth are unknown, no verdict on them.\n";
  return s;
}

}  // namespace cs::cluster
