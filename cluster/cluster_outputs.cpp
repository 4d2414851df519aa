#include "cluster/cluster_outputs.h"

#include "analysis/comm_summary_stream.h"
#include "analysis/comm_tables.h"
#include "analysis/recipe_agreement.h"
#include "cluster/analysis_steps.h"
#include "cluster/comm_summary_step.h"
#include "cluster/host_outputs.h"
#include "cluster/memory_step.h"
#include "cluster/stage_tasks.h"
#include "readers/parallel_group.h"
#include "runtime/allocator_tuning.h"
#include "runtime/cpu_cores.h"
#include "runtime/task_runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <functional>

namespace cs::cluster {

namespace {

struct Wants {
  bool groups, communication, matrix, step_trace, operators, diagnosis;
};

Wants wants_for(Mode mode) {
  const bool all = mode == Mode::kAll;
  const bool diag = all || mode == Mode::kDiagnosis;
  return Wants{
      mode != Mode::kOperators,
      all || mode == Mode::kCommunicationTime || diag,
      all || mode == Mode::kCommunicationMatrix || diag,
      all || mode == Mode::kStepTrace || diag,
      all || mode == Mode::kOperators || diag,
      diag,
  };
}

// Memory policy (the stage list below says when): every rank's matrix data freed and its pages
// given back to the system.
void free_matrix_data(std::vector<load::RankData>& ranks) {
  for (load::RankData& rd : ranks) rd.matrix = load::RankMatrix{};
  runtime::release_freed_memory();
}

// Memory policy: every rank's communication ops freed (a mode whose later steps do not read them),
// pages given back.
void free_communication(std::vector<load::RankData>& ranks) {
  for (load::RankData& rd : ranks) rd.communication = load::RankCommunication{};
  runtime::release_freed_memory();
}

// Memory policy: every rank's parallel groups (profiler_metadata.json's parallel_group_info: 24
// bytes a group, the groups' ids and rank lists shared, readers/parallel_group.h) freed once the
// communication groups are built from them: no later step reads them.
void free_parallel_groups(std::vector<load::RankData>& ranks) {
  for (load::RankData& rd : ranks)
    std::vector<readers::ParallelGroup>().swap(rd.metadata.parallel_groups);
  readers::forget_unused_parallel_groups();
}

}  // namespace

// Threads for the root's analyses. The other processes on the root's node sleep meanwhile, so
// the root borrows their share: --threads per process times the processes on the node, capped by
// the cores it may run on (all of the node's unless the launcher bound it; README: --bind-to none).
int root_threads(const ClusterRunOptions& opts, const LoadedCluster& loaded) {
  if (opts.load.threads <= 0) return runtime::usable_cores();
  return runtime::node_threads(opts.load.threads, loaded.processes_on_root_node);
}

// The stage list: the order of the work and what is freed when. The communication ops and the
// operator tables stay where the loader put them (under `cluster`, in a spill file on disk) and
// are read back a rank, or a batch of group tuples, at a time (the operator tables merged rank
// after rank in stage 4); what the root holds is the per-op tables and the matrix
// (docs/root_memory.md).
//
//   1 groups               communication_group.json (the ops read packed or spilled, in place)
//       free               what the mode's later steps do not read: the matrix data without a
//                          matrix merge, the communication ops without communication outputs
//                          or diagnosis
//   2 matrix merge         cluster_communication_matrix.json, the matrix table (streamed to
//                          the sink), the report's digest and the links' observations, a batch
//                          of group tuples at a time (each batch reads back only its ranks'
//                          parked matrix data, its merged links let go once its rows and
//                          observations are taken); alone, on every thread
//       free               every rank's matrix data (the groups were built from it before),
//                          pages given back
//   3 link diagnosis (slow links, slow transfers) from the observations
//       free               the observations
//   4 the report's matrix digest finished, the matrix table's last chunks written (waited
//       for), pages given
//       back; then on every thread, costliest first:
//       cluster_communication.json and the communication tables (one walk, a batch of group
//       tuples at a time; the tables built beside the document, on a thread of their own, where
//       memory does not come first), the step_trace table, operators,
//       rank summaries' sums + slow ranks (after 3: a rank late only for a slow link is not
//       blamed); then comm_rank_summary and comm_transport_summary from those sums; then
//       msprof-analyze's step trace (cluster_step_trace_time.csv, or its rows for
//       cluster_analysis.db, parked on disk until the main run is over)
//   5 merged in a fixed order: notes, write errors, the diagnosis tables and summary
//
// Where memory does not come first (no launcher, or one process), stage 4's steps start beside
// stages 2 and 3 instead (on the other threads, costliest first; the calling thread joins them
// once the links are judged), all but the slow ranks, which wait for the slow links: 256 ranks
// with no launcher spent 0.86 s in the stages in turn, 0.65 s this way (docs/scale.md). The
// root of several processes keeps the order above: its batches are then never held together.
// There stage 4 also runs cluster_communication.json and its tables first, alone, and its other
// steps after them: the slow ranks' working state (8 MB at 16,384 ranks) then never lands on the
// communication batches' peak (docs/root_memory.md, twenty-fifth session).
//
// The analyses are the steps of cluster/analysis_steps.h over `ranks`, a const view; the two
// memory steps are the only writes to `loaded`.
AnalysisResults run_analyses(LoadedCluster& loaded, const OutputContext& ctx, TableSink& sink,
                             runtime::PhaseLog& log) {
  const std::vector<load::RankData>& ranks = loaded.ranks;
  const Wants want = wants_for(ctx.opts.mode);
  runtime::prefer_huge_pages();  // the root's heap, filled by the analyses
                                 // (runtime/allocator_tuning.h)
  AnalysisOptions opts;
  opts.mode = ctx.opts.mode;
  opts.out_dir = ctx.out_dir;
  opts.json = ctx.opts.msprof_text && ctx.opts.formats.count(OutputFormat::kJson) > 0;
  // msprof-analyze's step trace is a CSV: written for --format csv too.
  opts.step_trace_csv =
      ctx.opts.msprof_text && (opts.json || ctx.opts.formats.count(OutputFormat::kCsv) > 0);
  opts.keep_step_trace = ctx.keep_step_trace;
  opts.ranks_filtered = ctx.opts.load.rank_filter.has_value() || ctx.missing_ranks_said;
  // The two big msprof-analyze documents also split their own work over these threads.
  opts.threads = root_threads(ctx.opts, loaded);
  opts.tables_beside_documents = opts.threads > 1 && !runtime::memory_comes_first();
  // CS_STREAM_ROWS=N (tests): batches of about N op reports (and HDF5 chunks of N rows, set by
  // cluster_run.cpp), so that small jobs take the streamed tables through many batches.
  if (const char* rows = std::getenv("CS_STREAM_ROWS"); rows && std::atol(rows) > 0)
    opts.comm_batch_ops = opts.matrix_batch_links = static_cast<size_t>(std::atol(rows));
  opts.top_n = static_cast<size_t>(ctx.opts.top_n);
  opts.order_by = ctx.opts.order_by;
  AnalysisResults r;

  GroupsResult groups;  // 1
  if (want.groups) {
    groups = groups_step(ranks, opts);
    log.lap("communication groups");
  }
  const AnalysisInputs in{ranks, want.groups ? &groups.groups : nullptr, loaded.spill};
  // What no later step reads goes as soon as the groups are built from it: the matrix links when
  // the mode merges no matrix (-m communication_time, step_trace), the communication ops when
  // no later step reads them (-m communication_matrix, step_trace).
  const bool ops_read_later = want.communication || want.diagnosis;
  free_parallel_groups(loaded.ranks);
  if (!want.matrix) free_matrix_data(loaded.ranks);
  if (!ops_read_later) free_communication(loaded.ranks);

  // Where memory does not come first (no launcher, or a process of its own), every step of stage
  // 4 that does not need the links' verdicts runs beside stages 2 and 3, costliest first: the
  // costliest steps then share the cores instead of running in turn, and only the slow ranks
  // wait for the slow links. They read different parts of the ranks (the ops, the matrix data).
  // The root of several processes keeps them in turn, so their batches are never held together.
  const bool beside_matrix = want.matrix && opts.threads > 1 && !runtime::memory_comes_first();
  LinkDiagnosis links;                 // 3
  StepMessages comm_json, step_trace;  // 4
  OperatorsResult operators;
  analysis::SlowRankAnalysis slow_ranks;
  std::vector<Task> tasks;
  if (want.communication)
    // Where memory comes first, alone and first: the document splits its batches over every
    // thread, and the slow ranks' and rank summaries' state, which grows with the ranks, never
    // lands on the batches' peak (docs/root_memory.md, twenty-fifth session).
    tasks.push_back(
        {opts.json ? "cluster_communication.json, communication tables" : "communication tables",
         1.7, [&] { comm_json = communication_step(in, opts, sink); },
         runtime::memory_comes_first()});
  if (want.operators)
    tasks.push_back({"operators", 0.1, [&] {
                       operators = operators_step(in, opts);
                       sink.put(std::move(operators.topn));
                     }});
  std::string memory_lines;  // memory/: only when ranks carry memory data
  if (want.diagnosis)
    tasks.push_back({"memory", 0.1, [&] { memory_lines = memory_step(ranks, in.groups, sink); }});
  // CS_STREAM_ROWS=N (tests): the two summaries in chunks of N rows too.
  const size_t summary_chunk =
      std::getenv("CS_STREAM_ROWS") ? opts.comm_batch_ops : analysis::CommSummaryStream::kChunkRows;
  // The rank summaries' sums beside the other analyses, their tables after them: built while the
  // communication batches are held, their chunks and streams were the root's peak at 16,384
  // ranks (docs/root_memory.md).
  std::unique_ptr<analysis::CommSummaryStream> comm_sums;
  if (want.diagnosis)
    tasks.push_back({"rank summaries", 0.2, [&] { comm_sums = comm_summary_sums(ranks); }});
  // After the link diagnosis (3): a rank late only for a slow link is not blamed.
  Task slow_ranks_task{"slow ranks", 0.2,
                       [&] { slow_ranks = slow_ranks_step(in, links.slow_links); }};
  if (want.diagnosis && !beside_matrix) tasks.push_back(std::move(slow_ranks_task));
  HostOutputs host;  // the host side (cluster/host_outputs.h)
  if (want.diagnosis)
    tasks.push_back({"host side", 0.1, [&] {
                       // the drill-down, read only by the report at the end, on disk
                       host = host_outputs(ranks, sink, loaded.spill);
                       r.host_rank_ops = std::move(host.rank_ops);
                     }});

  MatrixResult matrix;  // 2
  std::unique_ptr<report::MatrixDigestBuilder> digest;
  auto matrix_and_links = [&] {
    if (want.matrix) {
      if (ctx.want_matrix_digest) digest = std::make_unique<report::MatrixDigestBuilder>();
      matrix = matrix_step(in, opts, want.diagnosis, sink, digest.get());
      free_matrix_data(loaded.ranks);  // the matrix only: the ops may be read beside meanwhile
      log.lap("matrix merge, matrix table");
    }
    if (want.matrix && want.diagnosis) {  // 3
      links = link_diagnosis_step(in, matrix.observations, opts.threads);
      matrix.observations = analysis::LinkObservationSet{};
      log.lap("slow links, slow transfers");
    }
  };
  if (beside_matrix) {
    run_tasks(tasks, opts.threads, matrix_and_links);
    for (const Task& t : tasks) log.note(t.name + " (beside)", t.wall_s, t.cpu_s);
    log.lap("the steps beside, after the link diagnosis");
    tasks.clear();
    if (want.diagnosis) tasks.push_back(std::move(slow_ranks_task));
  } else {
    matrix_and_links();
  }

  // The step_trace table before the communication batches: put beside them, it waited in the
  // HDF5 writer's queue behind their chunks (8 MB at 16,384 ranks, at the root's peak;
  // docs/root_memory.md). Here the writer takes it after the matrix table, and both are written
  // before the batches start.
  if (want.step_trace) {
    sink.put(step_trace_step(in));
    log.lap("step trace table");
  }
  if (want.matrix) {
    if (digest) {
      const io::Table slow = analysis::slow_links_table(links.slow_links);
      // drawn only at the end: on disk meanwhile
      r.matrix_digest =
          ParkedMatrixDigest(digest->finish(want.diagnosis ? &slow : nullptr), loaded.spill);
      digest.reset();
    }
    // The streamed matrix table written before the communication tables are built, so the two
    // are never held together; then the pages go back, or the tasks' threads (other malloc
    // arenas) stack on top.
    if (!beside_matrix) {  // the stage 4 streams are written meanwhile otherwise
      sink.wait_written();
      runtime::release_freed_memory();
    }
    log.lap("matrix table written");
  } else if (want.step_trace) {
    sink.wait_written();
  }
  run_tasks(tasks, opts.threads, nullptr);
  for (const Task& t : tasks)
    log.note(t.name + (t.alone_first ? " (first)" : ""), t.wall_s, t.cpu_s);
  log.lap(("all of the above on " + std::to_string(opts.threads) + " thread(s)").c_str());
  // Memory policy: the batches' and the tasks' freed blocks go back before the summaries and the
  // step trace are built, which would otherwise grow the heap past its holes.
  runtime::release_freed_memory();
  if (comm_sums) {
    r.comm_rank_summary = comm_summary_tables(*comm_sums, sink, summary_chunk);
    r.has_comm_rank_summary = true;
    comm_sums.reset();
    runtime::release_freed_memory();
    log.lap("comm_rank_summary, comm_transport_summary");
  }
  // msprof-analyze's step trace once the batches are gone (analysis_steps.h); the rows kept for
  // cluster_analysis.db wait on disk until the main run is over.
  if (want.step_trace && (opts.step_trace_csv || opts.keep_step_trace)) {
    MsprofStepTraceResult t = msprof_step_trace_step(in, opts);
    step_trace = std::move(t.messages);
    r.has_step_trace = opts.keep_step_trace;
    if (opts.keep_step_trace)
      r.step_trace = documents::ParkedStepTrace(std::move(t.rows), loaded.spill);
    log.lap("cluster_step_trace_time");
  }

  for (const StepMessages* m :
       {&groups.messages, &comm_json, &matrix.messages, &step_trace, &operators.messages}) {
    r.notes.append(m->notes);  // 5
    ctx.diag.append(m->output);
  }
  if (want.diagnosis) {
    r.notes.append(slow_ranks.notes);
    sink.put(analysis::slow_ranks_table(slow_ranks.findings));
    sink.put(analysis::slow_links_table(links.slow_links));
    sink.put(analysis::slow_transfers_table(links.slow_transfers));
    r.summary = diagnosis_text(slow_ranks, links, operators.by_cv);
    if (const analysis::RecipeVerdicts& v = ctx.opts.recipe_verdicts; v.ran) {
      sink.put(analysis::recipe_agreement_table(v, slow_ranks.findings, links.slow_links));
      r.summary += analysis::recipe_agreement_summary(v, slow_ranks.findings, links.slow_links);
    }
    r.summary += memory_lines;
    r.summary += host.summary;
    r.notes.append(host.notes);
  }
  return r;
}

}  // namespace cs::cluster
