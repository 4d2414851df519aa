#include "cluster/cluster_outputs.h"

#include "analysis/comm_summary.h"
#include "analysis/comm_tables.h"
#include "analysis/diagnosis_summary.h"
#include "analysis/link_observations.h"
#include "analysis/operators_topn.h"
#include "analysis/slow_link.h"
#include "analysis/slow_rank.h"
#include "analysis/slow_transfer.h"
#include "load/rank_data_codec.h"
#include "msprof/cluster_communication.h"
#include "msprof/cluster_matrix.h"
#include "msprof/cluster_step_trace.h"
#include "msprof/communication_groups.h"
#include "runtime/allocator_tuning.h"
#include "runtime/cpu_cores.h"
#include "runtime/task_runner.h"
#include "stats/topn.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

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

struct Task {
  std::string name;
  // Relative cost, for the start order only: the costliest tasks start first, so the last one to
  // finish is a short one (longest-processing-time-first). Measured CPU seconds at 1,024 ranks:
  // matrix chain 2.0, cluster_communication.json 1.0, communication tables 0.7, others < 0.4.
  double cost = 0.1;
  std::function<void()> run;
  // Runs first, on the calling thread (it may use threads inside); the others start when it
  // opens the Gate given to run_tasks (or when it ends). For a task whose working set is large
  // and that frees rank data the others then reuse (the matrix chain).
  bool first = false;
  double wall_s = 0, cpu_s = 0;  // measured
};

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Opened once by a `first` task when the others may start; threads waiting in wait() then go on.
class Gate {
 public:
  void open() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

// Runs `tasks` on up to `threads` threads (the calling thread included), timing each: the `first`
// ones on the calling thread, the others (costliest first) on the other threads once `gate` is
// open and on the calling thread once the first ones are done. Rethrows the first exception a
// task threw once all have finished.
void run_tasks(std::vector<Task>& tasks, int threads, Gate& gate) {
  std::vector<std::exception_ptr> errors(tasks.size());
  auto run_one = [&](size_t i) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu = thread_cpu_seconds();
    try {
      tasks[i].run();
    } catch (...) {
      errors[i] = std::current_exception();
    }
    tasks[i].cpu_s = thread_cpu_seconds() - cpu;
    tasks[i].wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::vector<size_t> first, order;
  for (size_t i = 0; i < tasks.size(); ++i) (tasks[i].first ? first : order).push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return tasks[a].cost > tasks[b].cost; });
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t k; (k = next.fetch_add(1)) < order.size();) run_one(order[k]);
  };
  runtime::TaskGroup pool;  // run_one keeps each task's error: nothing is thrown by wait()
  const int extra = std::min<int>(threads, static_cast<int>(order.size())) - 1;
  for (int t = 0; t < extra; ++t)
    pool.run([&] {
      gate.wait();
      worker();
    });
  for (size_t i : first) run_one(i);
  gate.open();
  worker();
  pool.wait();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// Unpacks every rank's communication data (RankCommunication::unpack) on `threads` threads.
void unpack_all_communication(std::vector<RankData>& ranks, int threads) {
  runtime::parallel_for(ranks.size(), threads, [&](size_t i) { ranks[i].communication.unpack(); });
}

// What one analysis task reports besides its tables (those go to the sink as they are built);
// merged in a fixed order so output never depends on timing.
struct TaskOutput {
  io::Diagnostics notes;  // analysis warnings
  io::Diagnostics diag;   // write errors
};

}  // namespace

// Threads for the root's analyses. The other processes on the root's node sleep meanwhile, so
// the root borrows their share: --threads per process times the processes on the node, capped by
// the cores it may run on (all of the node's unless the launcher bound it; README: --bind-to none).
int root_threads(const ClusterRunOptions& opts, const LoadedCluster& loaded) {
  if (opts.load.threads <= 0) return usable_cores();
  return node_threads(opts.load.threads, loaded.processes_on_root_node);
}

AnalysisResults run_analyses(const OutputContext& ctx, TableSink& sink, bool want_matrix_digest,
                             PhaseLog& log) {
  AnalysisResults r;
  const auto& ranks = ctx.loaded.ranks;
  const Wants want = wants_for(ctx.opts.mode);
  const bool json = ctx.opts.formats.count(OutputFormat::kJson) > 0;
  auto path = [&](const char* name) { return ctx.out_dir + "/" + name; };

  CommGroups groups;
  if (want.groups) {
    GroupOptions g;
    // msprof-analyze reads groups from the files its mode analyses.
    g.use_communication = ctx.opts.mode != Mode::kCommunicationMatrix;
    g.use_matrix = ctx.opts.mode != Mode::kCommunicationTime;
    groups = build_comm_groups(ranks, g, r.notes);
    if (json) write_communication_group_json(path("communication_group.json"), groups, ctx.diag);
    log.lap("communication groups");
  }

  // The two big msprof-analyze documents also split their own work over these threads.
  const int threads = root_threads(ctx.opts, ctx.loaded);
  // Independent analyses, each a task with its own outputs, merged in the order of `out`.
  enum Slot { kCommJson, kCommTables, kMatrix, kStepTrace, kOperators, kRankSummaries, kSlots };
  std::vector<TaskOutput> out(kSlots);
  std::vector<Task> tasks;
  Gate gate;
  std::once_flag unpacked;
  auto ensure_unpacked = [&] {
    std::call_once(unpacked, [&] { unpack_all_communication(ctx.loaded.ranks, threads); });
  };
  GlobalLinks links;
  std::vector<stats::TopNRow> by_cv;
  std::vector<SlowLinkFinding> slow_links;
  std::vector<SlowTransferFinding> slow_transfers;
  SlowRankAnalysis slow_ranks;
  int unjudged_links = 0;    // links with too little data to judge (slow_link.h)
  int overflowed_links = 0;  // links whose size sums are beyond 1.8e308 (slow_link.h)

  if (want.communication) {
    if (json)
      tasks.push_back({"cluster_communication.json", 1.0, [&] {
                         write_cluster_communication_json(path("cluster_communication.json"), ranks,
                                                          groups, out[kCommJson].diag,
                                                          io::JsonStyle::python(), threads);
                       }});
    tasks.push_back({"communication tables", 0.7, [&] {
                       sink.put(communication_ops_table(ranks, groups));
                       sink.put(communication_bandwidth_table(ranks, groups));
                     }});
  }
  if (want.matrix) {
    // First: its merged links and table are the largest working set and it frees the ranks'
    // matrix data; the other tasks start once that is done, while it writes its table.
    tasks.push_back({"matrix, slow links, slow transfers", 2.0,
                     [&] {
                       // Local ranks map to global ones through profiler_metadata.json first, self
                       // links second.
                       MatrixOptions mopts;
                       mopts.use_metadata_ranks = true;
                       TaskOutput& o = out[kMatrix];
                       io::Diagnostics d;
                       links = json ? merge_and_write_cluster_matrix(
                                          path("cluster_communication_matrix.json"), ranks, groups,
                                          d, io::JsonStyle::python(), mopts, threads)
                                    : merge_matrix_links(ranks, groups, d, mopts);
                       for (const auto& item : d.items())
                         (item.severity == io::Severity::kError ? o.diag : o.notes).add(item);
                       // The merged links own their names and no other analysis reads the ranks'
                       // matrix data (the groups were built from it before): free it and give its
                       // pages back, so the table below does not stack on top of it.
                       for (RankData& rd : ctx.loaded.ranks) rd.matrix = io::MatrixFile{};
                       io::release_freed_memory();
                       ensure_unpacked();  // in the room the matrix data left
                       // The table and the link diagnosis both only read `links`: run them at
                       // once when there are threads to spare.
                       auto diagnose = [&] {
                         if (!want.diagnosis) return;
                         slow_links = find_slow_links(link_observations(links), {}, &unjudged_links,
                                                      &overflowed_links);
                         // Slow transfers per op class; links named only when the matrix agrees
                         // (slow_transfer.h).
                         slow_transfers = find_slow_transfers(ranks, slow_links);
                       };
                       runtime::TaskGroup diagnosis;  // joined on every way out of this scope
                       if (threads > 1) {
                         diagnosis.run(diagnose);
                       } else {
                         diagnose();
                       }
                       io::Table table = communication_matrix_table(links, threads);
                       diagnosis.wait();
                       links.clear();  // in the table now; free early
                       gate.open();    // the rest stays below the merge's peak
                       // The report's digest needs the slow links, so it is made here, after the
                       // diagnosis; then the table is written and freed.
                       if (want_matrix_digest) {
                         const io::Table slow = slow_links_table(slow_links);
                         r.matrix_digest =
                             report::digest_matrix(table, want.diagnosis ? &slow : nullptr);
                       }
                       sink.put(std::move(table));
                       // The links, the table and the merge's buffers are gone: give their pages
                       // back, or the other tasks' threads (other malloc arenas) stack on top.
                       io::release_freed_memory();
                     },
                     /*first=*/true});
  }
  if (want.step_trace) {
    tasks.push_back({"step trace", 0.1, [&] {
                       TaskOutput& o = out[kStepTrace];
                       // msprof-analyze's file is a CSV: written for --format csv too.
                       // Its notes are warnings; a failed write is an error (exit 1).
                       io::Diagnostics d;
                       if (json || ctx.opts.formats.count(OutputFormat::kCsv) > 0)
                         write_cluster_step_trace_csv(
                             path("cluster_step_trace_time.csv"), ranks, groups, d,
                             ctx.opts.load.rank_filter.has_value() || ctx.missing_ranks_said);
                       for (const auto& item : d.items())
                         (item.severity == io::Severity::kError ? o.diag : o.notes).add(item);
                       sink.put(step_trace_table(ranks));
                     }});
  }
  if (want.operators) {
    tasks.push_back({"operators", 0.1, [&] {
                       const stats::OperatorTable merged = merge_operators(ranks);
                       const stats::OrderBy order = ctx.opts.order_by;
                       // Pipeline stages make the cross-rank CV peer-relative (stats/topn.h).
                       const auto stages = rank_stages(ranks, want.groups ? &groups : nullptr);
                       sink.put(operators_topn_table(merged, static_cast<size_t>(ctx.opts.top_n),
                                                     order, stages));
                       by_cv = stats::select_topn(merged, 5, stats::OrderBy::kCv, stages);
                     }});
  }
  if (want.diagnosis) {
    tasks.push_back({"rank summaries, slow ranks", 0.3, [&] {
                       sink.put(comm_rank_summary_table(ranks));
                       sink.put(comm_transport_summary_table(ranks));
                       // After the matrix task's gate: the slow links are known, so a rank
                       // late only because of a slow link is not blamed (slow_rank.h).
                       slow_ranks = analyze_slow_ranks(
                           ranks, rank_stages(ranks, want.groups ? &groups : nullptr), slow_links);
                     }});
  }
  // The root holds the ranks' communication data packed until the matrix merge is done (the
  // matrix task unpacks it then); every other task makes sure it is unpacked before it starts.
  for (Task& t : tasks)
    if (!t.first)
      t.run = [&ensure_unpacked, run = std::move(t.run)] {
        ensure_unpacked();
        run();
      };
  run_tasks(tasks, threads, gate);
  for (const Task& t : tasks) log.note(t.name, t.wall_s, t.cpu_s);
  log.lap(("all of the above on " + std::to_string(threads) + " thread(s)").c_str());

  for (TaskOutput& o : out) {
    r.notes.append(o.notes);
    ctx.diag.append(o.diag);
  }
  if (want.diagnosis) {
    r.notes.append(slow_ranks.notes);
    sink.put(slow_ranks_table(slow_ranks.findings));
    sink.put(slow_links_table(slow_links));
    sink.put(slow_transfers_table(slow_transfers));
    r.summary = diagnosis_summary(slow_ranks.findings, slow_links, by_cv, slow_transfers);
    if (!slow_ranks.stage_imbalance.empty()) r.summary += slow_ranks.stage_imbalance + "\n";
    if (unjudged_links > 0)
      r.summary += std::to_string(unjudged_links) +
                   " link(s) carried too little data to judge (under 1 MB, or fewer than 3 "
                   "transfers and under 16 MB in all): no verdict on them.\n";
    if (overflowed_links > 0)
      r.summary += std::to_string(overflowed_links) +
                   " link(s) have sizes whose sum is beyond 1.8e308 MB (not a finite number): "
                   "their size and bandwidth are unknown, no verdict on them.\n";
  }
  return r;
}

}  // namespace cs::cluster
