#pragma once
// The analyses of `clusterscope cluster` as named steps over a const view of the loaded ranks:
// each takes const inputs and an options struct and returns its result (tables, findings,
// notes). A step never frees, packs or unpacks anything and never decides where a table goes:
// the order of the steps and what is freed between them is the stage list of run_analyses
// (cluster/cluster_outputs.cpp). msprof-analyze's documents (communication_group.json,
// cluster_communication.json, cluster_communication_matrix.json, cluster_step_trace_time.csv)
// are written by their steps while they are computed, when the options ask for them.
//
//   AnalysisInputs in{ranks, &groups};
//   OperatorsResult ops = operators_step(in, opts);  // ops.topn: the operators_topn table

#include <memory>
#include <string>
#include <vector>

#include "analysis/link_observations.h"
#include "analysis/slow_link.h"
#include "analysis/slow_rank.h"
#include "analysis/slow_transfer.h"
#include "cluster/cluster_mode.h"
#include "cluster/table_sink.h"
#include "io/diagnostics.h"
#include "io/table.h"
#include "load/rank_data.h"
#include "msprof_analyze/documents/cluster_matrix.h"
#include "msprof_analyze/documents/cluster_step_trace.h"
#include "msprof_analyze/documents/comm_batches.h"
#include "msprof_analyze/documents/communication_groups.h"
#include "msprof_analyze/documents/matrix_batches.h"
#include "report/cluster_page/cluster_report.h"
#include "runtime/spill_file.h"
#include "stats/topn.h"

namespace cs::cluster {

// What every step reads; nothing in it changes while the steps run.
struct AnalysisInputs {
  const std::vector<load::RankData>& ranks;       // sorted by rank
  const documents::CommGroups* groups = nullptr;  // null when the mode builds none (-m operators)
  // The loader's spill file (null when it has none): operators_step parks samples there too.
  std::shared_ptr<runtime::SpillFile> spill = nullptr;
};

struct AnalysisOptions {
  Mode mode = Mode::kAll;
  std::string out_dir;           // OUT/cluster_analysis_output: where the documents go
  bool json = false;             // write msprof-analyze's JSON documents
  bool step_trace_csv = false;   // write cluster_step_trace_time.csv (json or csv format)
  bool keep_step_trace = false;  // msprof_step_trace_step returns the document's rows
  // --rank-list, or the job's missing ranks already said (job_coverage.h): the step trace does
  // not warn about fewer ranks than the job has.
  bool ranks_filtered = false;
  int threads = 1;  // the steps that split their work use up to this many threads
  // The per-op tables built beside the document they come with (on a thread of their own), not
  // after it: faster, but both hold their buffers at once (not where memory comes first).
  bool tables_beside_documents = false;
  // Op reports per batch of group tuples (documents::CommBatches; tests force small batches).
  size_t comm_batch_ops = documents::CommBatches::kBatchOps;
  // Link reports per batch of group tuples of the matrix (documents::MatrixBatches).
  size_t matrix_batch_links = documents::MatrixBatches::kBatchLinks;
  size_t top_n = 15;
  stats::OrderBy order_by = stats::OrderBy::kTotal;
};

// A step's messages: its analysis warnings (printed with the run's notes) and what writing its
// document said (printed at the end of the run; an error there fails it).
struct StepMessages {
  io::Diagnostics notes, output;
  // Sorts `d`'s items by severity: errors to output, the others to notes.
  void add(const io::Diagnostics& d);
};

struct GroupsResult {
  documents::CommGroups groups;
  StepMessages messages;
};
// Communication groups from the files the mode analyses, as msprof-analyze reads them (the ops are
// read packed or not); communication_group.json when json.
GroupsResult groups_step(const std::vector<load::RankData>& ranks, const AnalysisOptions& opts);

struct MatrixResult {
  analysis::LinkObservationSet observations;  // with `observe`: the slow-link analysis's input
  StepMessages messages;
};
// Every rank's matrix links merged into global ones (local ranks mapped through
// profiler_metadata.json first, self links second), a batch of group tuples at a time
// (documents::merge_cluster_matrix): cluster_communication_matrix.json when json, the
// communication_matrix table streamed to `sink` batch by batch (never held whole; row order in
// analysis/comm_matrix_table.h), each batch's rows added to `digest` when given and, with
// `observe`, the links' observations; each batch's links let go once they are taken
// (docs/root_memory.md).
MatrixResult matrix_step(const AnalysisInputs& in, const AnalysisOptions& opts, bool observe,
                         TableSink& sink, report::MatrixDigestBuilder* digest);

struct LinkDiagnosis {
  std::vector<analysis::SlowLinkFinding> slow_links;
  std::vector<analysis::SlowTransferFinding>
      slow_transfers;        // links named only when the matrix agrees
  int unjudged_links = 0;    // links with too little data to judge (slow_link.h)
  int overflowed_links = 0;  // links whose size sums are beyond 1.8e308 (slow_link.h)
};
// Slow links from the merged links' observations, then slow transfers per op class
// (slow_transfer.h), the ranks read on `threads` threads.
LinkDiagnosis link_diagnosis_step(const AnalysisInputs& in,
                                  const analysis::LinkObservationSet& observations, int threads);

// cluster_communication.json (msprof-analyze's document) when opts.json, and the communication_ops
// and communication_bandwidth tables, from one walk over the ops a batch of group tuples at a time
// (msprof_analyze/documents/comm_batches.h: the ops are read packed or spilled, never all held);
// each batch rendered on opts.threads threads, its rows streamed to `sink` (TableSink::open_stream:
// neither table is ever held whole; row order in analysis/comm_op_tables.h).
StepMessages communication_step(const AnalysisInputs& in, const AnalysisOptions& opts,
                                TableSink& sink);

// clusterscope's step_trace table.
io::Table step_trace_step(const AnalysisInputs& in);

struct MsprofStepTraceResult {
  documents::ClusterStepTrace rows;  // the document's rows, when opts.keep_step_trace
  StepMessages messages;
};
// msprof-analyze's cluster_step_trace_time.csv when opts.step_trace_csv, and its rows when
// opts.keep_step_trace (for cluster_analysis.db); nothing when neither. Run after stage 4's
// tasks: the rows (about 4 MB at 16,384 ranks, more while they are built) are then never held
// beside the communication step's batches (docs/root_memory.md).
MsprofStepTraceResult msprof_step_trace_step(const AnalysisInputs& in, const AnalysisOptions& opts);

struct OperatorsResult {
  io::Table topn;                     // operators_topn: opts.top_n rows by opts.order_by
  std::vector<stats::TopNRow> by_cv;  // the 5 most varying across ranks, for the summary
  StepMessages messages;              // a spill file that could not be written
};
// TopN operators over every rank's kernels; pipeline stages make the CV peer-relative. The
// kernels' exact durations are parked in in.spill by key while the ranks are merged
// (analysis::merge_operators_parked), so the root holds one key's at a time.
OperatorsResult operators_step(const AnalysisInputs& in, const AnalysisOptions& opts);

// Slow ranks, given the slow links (a rank late only because of a slow link is not blamed).
analysis::SlowRankAnalysis slow_ranks_step(
    const AnalysisInputs& in, const std::vector<analysis::SlowLinkFinding>& slow_links);

// The closing summary's findings in plain words: slow ranks, links, transfers, the most varying
// operator, stage imbalance and the links left unjudged.
std::string diagnosis_text(const analysis::SlowRankAnalysis& slow_ranks, const LinkDiagnosis& links,
                           const std::vector<stats::TopNRow>& by_cv);

}  // namespace cs::cluster
