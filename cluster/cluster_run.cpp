#include "cluster/cluster_run.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "cluster/cluster_outputs.h"
#include "cluster/hdf5_mpi.h"
#include "cluster/memory_step.h"
#include "cluster/output_summary.h"
#include "cluster/parked_table.h"
#include "cluster/rank_tables.h"
#include "io/diagnostics_print.h"
#include "io/hdf5/hdf5_library.h"
#include "io/hdf5/hdf5_writer.h"
#include "io/output_ledger.h"
#include "io/text_escape.h"
#include "load/discovery.h"
#include "load/job_coverage.h"
#include "load/manifest.h"
#include "load/rank_list.h"
#include "report/cluster_page/cluster_report.h"
#include "report/cluster_page/manifest_digest.h"
#include "runtime/allocator_tuning.h"
#include "runtime/cpu_cores.h"
#include "runtime/exit_status.h"
#include "runtime/interrupt.h"
#include "runtime/spill_file.h"
#include "version.h"

namespace cs::cluster {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxErrorLines = 20;

// The file's path below its rank directory ("ASCEND_PROFILER_OUTPUT/analysis.db"), so the same
// problem in every rank's copy of a file reads the same.
std::string path_in_rank(const std::string& file, const std::string& rank_dir) {
  if (file.empty() || rank_dir.empty()) return file;
  std::error_code ec;
  fs::path rel = fs::path(file).lexically_relative(rank_dir);
  if (rel.empty() || *rel.begin() == "..") return file;
  return rel.string();
}

// One problem as it reads in every rank: severity, file below the rank directory, what, hint.
struct ProblemKey {
  io::Severity severity;
  std::string file, what, hint;
  auto operator<=>(const ProblemKey&) const = default;
};

// Errors and rank problems go to stderr once per problem, not once per rank: the first rank's
// line, then "(the same in N ranks: 0-11)". The manifest has every rank's problems.
void report_problems(const LoadedCluster& lc) {
  size_t printed = 0, hidden = 0;
  // Discovery's diagnostics are already one per problem (duplicate runs, unknown ranks, ...).
  for (const auto& d : lc.diagnostics.items()) {
    if (printed < kMaxErrorLines) {
      io::print_message(d.to_string());
      ++printed;
    } else if (d.severity == io::Severity::kError) {
      ++hidden;
    }
  }
  std::map<ProblemKey, size_t> index;  // -> position in `problems`
  struct Problem {
    const io::Diagnostic* first;
    std::set<int> ranks;
    size_t count = 0;
  };
  std::vector<Problem> problems;
  for (const auto& r : lc.ranks) {
    for (const auto& d : r.diagnostics.items()) {
      // A rank's warnings with a file are row-level notes (kept in the manifest); those without
      // a file say something about the whole rank and are shown like errors.
      if (d.severity != io::Severity::kError && !d.file.empty()) continue;
      ProblemKey key{d.severity, path_in_rank(d.file, r.entry.path), d.what, d.hint};
      auto [it, added] = index.try_emplace(std::move(key), problems.size());
      if (added) problems.push_back({&d, {}, 0});
      Problem& p = problems[it->second];
      ++p.count;
      if (r.entry.rank >= 0) p.ranks.insert(r.entry.rank);
    }
  }
  for (const Problem& p : problems) {
    if (printed >= kMaxErrorLines) {
      ++hidden;
      continue;
    }
    ++printed;
    std::string line = p.first->to_string();
    // A rank may meet one problem twice (two readers of one file): ranks are counted once.
    const size_t ranks = p.ranks.empty() ? p.count : p.ranks.size();
    if (ranks > 1) {
      line += " (the same in " + std::to_string(ranks) + " ranks";
      if (!p.ranks.empty()) line += ": " + load::format_rank_set(p.ranks);
      line += ")";
    }
    io::print_message(line);
  }
  if (hidden > 0)
    std::fprintf(
        stderr,
        "clusterscope: ... %zu more problem(s) \u2014 every rank's status and problems are "
        "in rank_manifest.csv\n",
        hidden);
}

// The analyses' notes, one line per problem (io::note_lines: the same note from several steps
// or groups once, "(N times)"; one problem of many groups one line naming a few), at most
// kMaxErrorLines of them.
void print_notes(const io::Diagnostics& notes) {
  const std::vector<std::string> lines = io::note_lines(notes);
  for (size_t i = 0; i < lines.size() && i < kMaxErrorLines; ++i) io::print_message(lines[i]);
  if (lines.size() > kMaxErrorLines)
    std::fprintf(stderr, "clusterscope: ... %zu more warning(s) from the analyses\n",
                 lines.size() - kMaxErrorLines);
}

std::string iso_utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// --step N that no rank's files hold: a mistake, not an empty result. Exit 2 naming the steps
// present ("step 9 is not in the data — steps present: 1-4"); 0 when N is there or when the files
// carry no step numbers at all.
int check_step_present(const LoadedCluster& lc, const ClusterRunOptions& opts) {
  if (!opts.load.parse.step) return runtime::kExitOk;
  std::set<int> present;
  for (const auto& r : lc.ranks)
    for (int64_t s : r.steps_present) present.insert(static_cast<int>(s));
  if (present.empty() || present.count(static_cast<int>(*opts.load.parse.step)))
    return runtime::kExitOk;
  io::print_message(opts.load.input_dir + ": step " + std::to_string(*opts.load.parse.step) +
                    " is not in the data \u2014 steps present: " + load::format_rank_set(present));
  return runtime::kExitUsage;
}

// "a.csv, b.json and 3 more": file names relative to `dir`, at most `max` of them.
std::string name_list(const std::vector<std::string>& paths, const fs::path& dir) {
  return io::output_name_list(paths, dir.string());
}

// Creates OUT/cluster_analysis_output and starts this run's ledger there: the outputs of the
// previous run in it are removed first (one line says which), so old and new never mix. False
// (after one message) when the directory cannot be created.
bool start_output_dir(const fs::path& out_dir, bool quiet) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) {
    std::fprintf(stderr,
                 "clusterscope: %s: cannot create the output directory (%s) \u2014 choose another "
                 "with -o\n",
                 out_dir.string().c_str(), ec.message().c_str());
    return false;
  }
  io::Diagnostics diag;
  const std::vector<std::string> removed = io::OutputLedger::instance().begin(out_dir, diag);
  for (const auto& d : diag.items()) io::print_message(d.to_string());
  if (!removed.empty() && !quiet) {
    std::vector<std::string> paths;
    for (const auto& name : removed) paths.push_back((out_dir / name).string());
    std::fprintf(stderr, "clusterscope: %s: removed %zu file(s) of the previous run: %s\n",
                 out_dir.string().c_str(), removed.size(), name_list(paths, out_dir).c_str());
  }
  return true;
}

// The end of a run that failed to write some output: which files are there and which are not.
void report_written_and_missing(const fs::path& out_dir) {
  const auto& ledger = io::OutputLedger::instance();
  const std::vector<std::string> failed = ledger.failed_files();
  const std::vector<std::string> written = ledger.written_files();
  std::fprintf(stderr, "clusterscope: %s: %zu output(s) not written: %s; %zu written: %s\n",
               out_dir.string().c_str(), failed.size(),
               failed.empty() ? "-" : name_list(failed, out_dir).c_str(), written.size(),
               written.empty() ? "none" : name_list(written, out_dir).c_str());
}

// Nothing could be analysed but directories were found: the manifest still says what was found
// and why each was skipped.
void write_manifest_only(const LoadedCluster& lc, const ClusterRunOptions& opts) {
  if (lc.skipped.empty()) return;
  const fs::path out_dir = fs::path(opts.output_dir) / "cluster_analysis_output";
  if (!start_output_dir(out_dir, opts.quiet)) return;
  TableSink sink(out_dir.string(), /*csv=*/true, nullptr, {}, 1);
  sink.put(load::build_manifest_table(lc.ranks, lc.skipped));
  if (sink.diagnostics().has_errors()) return;
  io::print_message("every skipped directory and why: " + (out_dir / "rank_manifest.csv").string());
}

// The root, before anything is written: the output directory started (the previous run's files
// removed), the ranks' problems said, --step checked. kExitOk to go on.
int prepare_output(const LoadedCluster& lc, const ClusterRunOptions& opts) {
  const fs::path out_dir = fs::path(opts.output_dir) / "cluster_analysis_output";
  if (!start_output_dir(out_dir, opts.quiet)) return runtime::kExitFatal;
  report_problems(lc);
  return check_step_present(lc, opts);
}

// Every process: cluster_analysis.h5 created collectively and the per-rank tables written into it
// by the processes that parsed the ranks (cluster/rank_tables.h); then the root reopens it alone
// for the rest. Returns the root's file (nullopt elsewhere, or when it failed: the root's
// `h5_diag` says why) and, in `written`, the tables already in it (none when `tables` is null:
// the root then writes every table, CS_HDF5_RANK_TABLES=root).
std::optional<io::Hdf5File> write_rank_tables(const mpi::MpiSession& mpi, const LoadedCluster& lc,
                                              const ClusterRunOptions& opts, RankTables* tables,
                                              std::set<std::string>& written,
                                              io::Diagnostics& h5_diag) {
  const fs::path path =
      fs::path(opts.output_dir) / "cluster_analysis_output" / "cluster_analysis.h5";
  const MpiHdf5Collective coll(mpi);
  std::optional<io::Hdf5File> h5 = io::Hdf5File::create(path.string(), h5_diag, &coll);
  // H5Fcreate is collective: it fails everywhere or nowhere; agreed anyway before the writes.
  if (mpi.any(!h5, mpi::MpiSession::Arrival::kPrompt)) return std::nullopt;
  if (tables) written = tables->write(*h5, lc.skipped, h5_diag);
  if (!h5->end_collective(h5_diag)) h5.reset();  // the others' part is done
  return h5;
}

// Every process: the per-rank tables' CSV files written by the processes that parsed the ranks,
// each its rows at their offsets (cluster/rank_tables.h). Returns, on the root, the files written.
// A file the processes could not write together (no file system they all share, a full disk) is
// said once by each process that saw why, as a warning: the root then writes it from the ranks it
// gathered, as it writes every other table.
std::set<std::string> write_rank_csv_files(const mpi::MpiSession& mpi, const LoadedCluster& lc,
                                           const ClusterRunOptions& opts, RankTables& tables) {
  const fs::path dir = fs::path(opts.output_dir) / "cluster_analysis_output";
  const MpiHdf5Collective coll(mpi);
  io::Diagnostics diag;
  std::set<std::string> written = tables.write_csv(dir.string(), coll, lc.skipped, diag);
  for (io::Diagnostic d : diag.items()) {
    d.severity = io::Severity::kWarning;
    d.hint = "the root writes the file itself from the ranks it gathered";
    io::print_message(d.to_string());
  }
  return written;
}

int analyse_and_write(LoadedCluster& lc, const ClusterRunOptions& opts, int processes,
                      runtime::PhaseLog& log, std::chrono::steady_clock::time_point started,
                      std::optional<documents::BuiltStepTrace>* step_trace,
                      std::optional<io::Hdf5File>& h5, io::Diagnostics& h5_diag,
                      const std::set<std::string>& h5_written,
                      const std::set<std::string>& csv_written) {
  const fs::path out_dir = fs::path(opts.output_dir) / "cluster_analysis_output";
  // Fewer rank directories than the job has, -d at one rank's directory, results inside one.
  // Only its lines are kept: its sets of rank ids (0.7 MB at 16,384 ranks) are not held through
  // the analyses.
  bool short_of_job = false, one_rank_of_job = false;
  std::string coverage_line;
  {
    const auto coverage =
        load::job_coverage(lc.ranks, lc.skipped, opts.load.rank_filter.has_value());
    short_of_job = coverage && !coverage->missing.empty();
    one_rank_of_job =
        lc.input_is_rank_dir && !(coverage && coverage->size_known && coverage->missing.empty());
    if (short_of_job) {
      std::fprintf(stderr, "clusterscope: %s\n",
                   load::short_of_job_line(opts.load.input_dir, *coverage).c_str());
      coverage_line = load::coverage_line(*coverage);
    }
  }
  if (const std::string note = load::input_output_note(lc.ranks, lc.input_is_rank_dir,
                                                       opts.load.input_dir, out_dir.string());
      !note.empty())
    std::fprintf(stderr, "clusterscope: %s\n", note.c_str());

  io::Diagnostics out_diag;
  const bool csv = opts.formats.count(OutputFormat::kCsv) > 0;
  const bool html = opts.formats.count(OutputFormat::kHtml) > 0;
  OutputContext ctx{opts, out_dir.string(), out_diag, short_of_job, html, step_trace != nullptr};
  // Tables are written as the analyses build them (cluster/table_sink.h); the report's tables
  // are small and kept; the matrix, comm_rank_summary and rank_manifest reach it as digests.
  std::set<std::string> report_tables = {"step_trace", "operators_topn", "slow_ranks", "slow_links",
                                         "recipe_agreement"};
  report_tables.insert(kMemoryReportTables.begin(), kMemoryReportTables.end());
  report_tables.insert({"host_ops", "free_breakdown"});
  TableSink sink(out_dir.string(), csv, h5 ? &*h5 : nullptr,
                 html ? report_tables : std::set<std::string>{}, root_threads(opts, lc));
  sink.set_op_tables(opts.op_tables);
  sink.set_hdf5_elsewhere(h5_written);
  sink.set_csv_elsewhere(csv_written);
  sink.park_kept_in(lc.spill);  // the report's tables wait on disk while stage 4 runs
  // CS_STREAM_ROWS=N (tests): the streamed tables in HDF5 chunks of N rows (and batches of about
  // N op reports: run_analyses).
  if (const char* rows = std::getenv("CS_STREAM_ROWS"); rows && std::atol(rows) > 0)
    sink.set_stream_chunk_rows(static_cast<size_t>(std::atol(rows)));
  io::Table manifest = load::build_manifest_table(lc.ranks, lc.skipped);
  // The report reads a digest of it (report/cluster_page/manifest_digest.h): the table goes now,
  // the digest waits on disk until the report is drawn.
  ParkedTable manifest_small(html ? report::manifest_digest(manifest) : io::Table(), lc.spill);
  sink.put(std::move(manifest));
  load::release_entry_lists(lc.ranks);  // read only by the manifest and the coverage, above

  log.begin("analyse");
  AnalysisResults results = run_analyses(lc, ctx, sink, log);
  sink.finish();  // the HDF5 datasets of the last tables
  if (h5)
    log.note("HDF5 datasets (the sink's thread)", sink.hdf5_wall_seconds(),
             sink.hdf5_cpu_seconds());
  log.end(std::to_string(sink.count()) + " tables, written as built");
  if (short_of_job) results.summary = coverage_line + "\n" + results.summary;

  if (!opts.quiet) print_notes(results.notes);

  log.begin("write");
  runtime::interrupt_checkpoint("write");
  if (h5) {
    h5->set_attribute("/meta", "tool", std::string("clusterscope"), h5_diag);
    h5->set_attribute("/meta", "tool_version", std::string(CLUSTERSCOPE_VERSION), h5_diag);
    h5->set_attribute("/meta", "input_path", opts.load.input_dir, h5_diag);
    h5->set_attribute("/meta", "mode", std::string(mode_name(opts.mode)), h5_diag);
    h5->set_attribute("/meta", "ranks", static_cast<int64_t>(lc.ranks.size()), h5_diag);
    h5->set_attribute("/meta", "ranks_skipped", static_cast<int64_t>(lc.skipped.size()), h5_diag);
    h5->set_attribute("/meta", "processes", static_cast<int64_t>(processes), h5_diag);
    h5->set_attribute("/meta", "input_bytes", static_cast<int64_t>(lc.input_bytes), h5_diag);
    h5->set_attribute("/meta", "created", iso_utc_now(), h5_diag);
    h5->finish(h5_diag);
  }
  io::Diagnostics html_diag;
  if (html) {
    report::ClusterReportInput in;
    in.step_trace = sink.kept("step_trace");
    if (results.has_comm_rank_summary) {
      in.comm_rank_summary = &results.comm_rank_summary.group_ranks;
      in.comm_rank_totals = &results.comm_rank_summary.rank_totals;
    }
    in.operators_topn = sink.kept("operators_topn");
    in.slow_ranks = sink.kept("slow_ranks");
    in.slow_links = sink.kept("slow_links");
    in.recipe_agreement = sink.kept("recipe_agreement");
    in.memory_ranks = sink.kept("memory_ranks");
    in.memory_steps = sink.kept("memory_steps");
    in.memory_curves = sink.kept("memory_curves");
    in.memory_findings = sink.kept("memory_findings");
    in.host_ops = sink.kept("host_ops");
    in.free_breakdown = sink.kept("free_breakdown");
    // Parked on disk: when the disk fails them, the page goes without them.
    const auto unread = [&](const std::string& what, const std::exception& e,
                            const std::string& without) {
      io::Diagnostic x;
      x.severity = io::Severity::kWarning;
      x.what = "the " + what + " could not be read back from the spill file (" + e.what() + ")";
      x.hint = "report.html goes without " + without + "; check the disk under $TMPDIR";
      html_diag.add(std::move(x));
    };
    try {
      in.manifest = &manifest_small.get();
    } catch (const std::exception& e) {
      unread("rank manifest's digest", e, "the overview of the ranks read");
    }
    try {
      in.matrix_digest = results.matrix_digest.get();
    } catch (const std::exception& e) {
      unread("matrix digest", e, "the communication matrix's heatmaps");
    }
    try {
      if (results.host_rank_ops.get().rows() > 0) in.host_rank_ops = &results.host_rank_ops.get();
    } catch (const std::exception& e) {
      unread("host drill-down", e, "each rank's host operators");
    }
    in.input_path = opts.load.input_dir;
    in.processes = processes;
    in.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    in.input_bytes = lc.input_bytes;
    in.summary_text = results.summary;
    report::write_cluster_report_html(in, (out_dir / "report.html").string(), html_diag);
  }
  // The step trace kept for cluster_analysis.db, on disk since stage 4: moved to a spill file
  // of its own (the run's goes with the run), where it waits through that database's recipes.
  // When the disk fails it, cluster_analysis.db reads the ranks again.
  if (step_trace && results.has_step_trace) {
    try {
      documents::BuiltStepTrace built;
      std::shared_ptr<runtime::SpillFile> own;
      try {
        own = runtime::SpillFile::create();
      } catch (const std::exception&) {  // no file: the rows wait in memory
      }
      built.trace = documents::ParkedStepTrace(results.step_trace.take(), own);
      built.from_db_exports = true;
      for (const load::RankData& r : lc.ranks) {
        built.rank_dirs.push_back(r.entry.path);
        built.from_db_exports =
            built.from_db_exports && r.entry.export_type == load::ExportType::kDb;
      }
      built.one_step = opts.load.parse.step.has_value();
      step_trace->emplace(std::move(built));
    } catch (const std::exception& e) {
      io::Diagnostic x;
      x.severity = io::Severity::kWarning;
      x.what = std::string(
                   "the step trace kept for cluster_analysis.db could not be read back "
                   "from the spill file (") +
               e.what() + ")";
      x.hint =
          "cluster_analysis.db reads the ranks' step traces again; check the disk under $TMPDIR";
      out_diag.add(std::move(x));
    }
  }
  out_diag.append(sink.diagnostics());
  out_diag.append(h5_diag);
  out_diag.append(html_diag);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  log.end(out_dir.string());
  for (const auto& d : out_diag.items()) io::print_message(d.to_string());
  if (out_diag.has_errors()) {
    report_written_and_missing(out_dir);
    return runtime::kExitFatal;
  }

  const load::StatusCounts c = load::count_statuses(lc.ranks, lc.skipped);
  if (!opts.quiet) {
    std::printf(
        "clusterscope: %zu rank(s) analysed (%zu ok, %zu partly read), %zu skipped, %s in "
        "%.1f s on %d process(es)\n",
        c.ok + c.partial, c.ok, c.partial, c.skipped, runtime::human_bytes(lc.input_bytes).c_str(),
        secs, processes);
    if (!results.summary.empty()) std::printf("%s", results.summary.c_str());
    std::printf("%s", outputs_line(output_file_sizes(io::OutputLedger::instance().written_files(),
                                                     out_dir.string()),
                                   sink.op_table_rows(), opts.op_tables, h5.has_value())
                          .c_str());
    std::printf("Results: %s/\n", io::escape_text(out_dir.string()).c_str());
    // The last line: the page to open, only when this run wrote it (never a stale one).
    if (html && !html_diag.has_errors() && fs::exists(out_dir / "report.html"))
      std::printf("Report: %s\n",
                  io::escape_text(fs::absolute(out_dir / "report.html").string()).c_str());
  }
  if (c.ok + c.partial == 0) return runtime::kExitFatal;
  if (c.partial + c.skipped > 0 || short_of_job || one_rank_of_job)
    return opts.strict ? runtime::kExitFatal : runtime::kExitPartial;
  return runtime::kExitOk;
}

// The interrupt action (runtime/interrupt.h): the .tmp files of this run removed, one line from
// the root naming what had been completed, every process ended with 130 / 143.
[[noreturn]] void on_interrupt(const mpi::MpiSession& mpi, const ClusterRunOptions& opts, int sig) {
  io::OutputLedger::instance().interrupted(
      runtime::interrupt_signal_name(sig),
      (fs::path(opts.output_dir) / "cluster_analysis_output").string(), mpi.is_root());
  const int code = runtime::interrupt_exit_code(sig);
  if (mpi.size() > 1) mpi.abort(code);
  std::_Exit(code);
}

}  // namespace

int run_cluster(const mpi::MpiSession& mpi, const ClusterRunOptions& opts,
                std::optional<documents::BuiltStepTrace>* step_trace) {
  const auto started = std::chrono::steady_clock::now();
  runtime::install_interrupt_handlers();
  runtime::set_interrupt_action([&mpi, &opts](int sig) { on_interrupt(mpi, opts, sig); });
  runtime::PhaseLog log(mpi.is_root() && opts.progress && !opts.quiet);
  // The root parks the communication ops in a spill file; the analyses read them back a rank or a
  // batch of group tuples at a time (docs/root_memory.md).
  LoadOptions load = opts.load;
  load.spill_communication = true;
  // Each process keeps its own ranks' rows of the per-rank HDF5 tables as it parses them.
  const bool hdf5 = opts.formats.count(OutputFormat::kHdf5) > 0;
  // The HDF5 library (tens of ms to load: io/hdf5/hdf5_library.h) loaded on a thread of its own
  // while the ranks are discovered and parsed, not on the way to the first table.
  std::future<bool> hdf5_loaded;
  if (hdf5) hdf5_loaded = std::async(std::launch::async, io::hdf5_load_library);
  RankTables rank_tables(opts.mode == Mode::kAll || opts.mode == Mode::kDiagnosis);
  // CS_HDF5_RANK_TABLES=root: the root writes them like every other table (how the collective
  // writes are measured against it: docs/parallel_hdf5.md).
  const char* where = std::getenv("CS_HDF5_RANK_TABLES");
  const bool collective_tables = hdf5 && !(where && std::string(where) == "root");
  // Their CSV files too: every process writes its ranks' rows into them (never gathered).
  const bool csv = opts.formats.count(OutputFormat::kCsv) > 0;
  if (collective_tables || csv)
    load.on_parsed = [&rank_tables](const load::RankData& d) { rank_tables.add(d); };
  LoadedCluster lc = load_cluster(mpi, load, log);
  runtime::interrupt_checkpoint("loaded");
  int code = runtime::kExitOk;
  if (lc.fatal) {
    if (mpi.is_root()) {
      io::print_message(lc.fatal_message);
      write_manifest_only(lc, opts);
    }
    code = runtime::kExitFatal;
  } else {
    {
      mpi::MpiSession::RootAlone alone(mpi, "prepare", "prepared the output directory");
      if (mpi.is_root()) code = prepare_output(lc, opts);
    }
    const bool go = !mpi.any(code != runtime::kExitOk);
    io::Diagnostics h5_diag;
    std::optional<io::Hdf5File> h5;
    std::set<std::string> h5_written, csv_written;
    if (go && csv) {  // before the HDF5 file, which takes the rows
      log.begin("per-rank CSV files");
      csv_written = write_rank_csv_files(mpi, lc, opts, rank_tables);
      log.end(std::to_string(csv_written.size()) + " files written by " +
              std::to_string(mpi.size()) + " process(es)");
    }
    if (go && hdf5) {
      log.begin("per-rank HDF5 tables");  // logs on the root only
      h5 = write_rank_tables(mpi, lc, opts, collective_tables ? &rank_tables : nullptr, h5_written,
                             h5_diag);
      log.end(std::to_string(h5_written.size()) + " tables written by " +
              std::to_string(mpi.size()) + " process(es)");
      if (!mpi.is_root())  // the root prints its own with the other write errors
        for (const auto& d : h5_diag.items()) io::print_message(d.to_string());
    }
    // The root analyses and writes alone; the others wait for it, watched (mpi/mpi_comm.h).
    mpi::MpiSession::RootAlone alone(mpi, "analyse", "analysed the ranks and wrote the results");
    if (mpi.is_root() && go) {
      // The other processes of the root's node wait meanwhile: their cores are the root's too
      // until it is done (RootAlone; bound to one core each, as mpirun binds two processes, the
      // root would otherwise analyse 16,384 ranks on one core: 72 s against 45 s on two).
      if (alone.widened() && log.enabled())
        std::fprintf(stderr,
                     "clusterscope: the root analyses on %d core(s): those of its node's %d "
                     "processes, which wait meanwhile\n",
                     runtime::usable_cores(), mpi.local_size());
      code = analyse_and_write(lc, opts, mpi.size(), log, started, step_trace, h5, h5_diag,
                               h5_written, csv_written);
      if (log.enabled()) {
        std::fprintf(stderr, "clusterscope: peak RSS of the root process %s (malloc: %s)\n",
                     runtime::human_bytes(runtime::peak_rss_bytes()).c_str(),
                     runtime::allocator_settings().c_str());
      }
    }
  }
  // Every process exits with the root's status.
  return static_cast<int>(mpi.max_idle_wait(mpi.is_root() ? code : runtime::kExitOk));
}

}  // namespace cs::cluster
