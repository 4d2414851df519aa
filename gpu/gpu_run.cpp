#include "gpu/gpu_run.h"

#include "gpu/gpu_report.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include "gpu/gpu_codec.h"
#include "gpu/gpu_collectives.h"
#include "gpu/gpu_diagnosis.h"
#include "gpu/gpu_tables.h"
#include "io/csv/csv_writer.h"
#include "io/diagnostics_print.h"
#include "io/hdf5/hdf5_tables.h"
#include "io/output_ledger.h"
#include "report/display_format.h"
#include "runtime/cpu_cores.h"
#include "runtime/exit_status.h"
#include "runtime/task_runner.h"

namespace cs::gpu {

namespace fs = std::filesystem;

std::vector<int> partition_traces(const std::vector<GpuTraceFile>& traces, int processes) {
  std::vector<size_t> order(traces.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return traces[a].bytes > traces[b].bytes; });
  std::vector<uint64_t> load(static_cast<size_t>(std::max(processes, 1)), 0);
  std::vector<int> owner(traces.size(), 0);
  for (size_t i : order) {
    const size_t p = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    owner[i] = static_cast<int>(p);
    load[p] += traces[i].bytes + 1;
  }
  return owner;
}

GpuRankSummary summarize_trace_file(const GpuTraceFile& f) {
  GpuRankSummary s;
  io::Diagnostics diag;
  bool ok = false;
  {
    readers::Trace t;  // the one whole trace this thread holds
    try {
      ok = readers::read_kineto_trace(f.path, t, diag);
    } catch (const std::exception& e) {
      diag.error(f.path, 0, std::string("cannot be read: ") + e.what(),
                 "the rank is left out; check the file");
    }
    if (ok) s = summarize_gpu_trace(t, t.distributed.rank >= 0 ? t.distributed.rank : f.name_rank);
    s.trace_rank = ok ? t.distributed.rank : -1;
  }
  s.path = f.path;
  s.name_rank = f.name_rank;
  s.parsed = ok;
  for (const auto& d : diag.items())
    s.messages.push_back(std::string(d.severity == io::Severity::kError ? "error: " : "") +
                         d.to_string());
  return s;
}

std::vector<GpuRankSummary> resolve_ranks(std::vector<GpuRankSummary> all,
                                          const std::optional<std::set<int>>& filter,
                                          std::vector<std::string>& notes) {
  std::sort(all.begin(), all.end(),
            [](const GpuRankSummary& a, const GpuRankSummary& b) { return a.path < b.path; });
  std::map<int, GpuRankSummary> by_rank;
  int from_name = 0;
  std::string first_from_name;
  for (auto& s : all) {
    if (!s.parsed) continue;
    if (s.trace_rank < 0) {
      if (s.name_rank < 0) {
        notes.push_back(s.path +
                        ": no distributedInfo.rank and no number in the file name — "
                        "the trace is left out; name it rank-N.json(.gz)");
        continue;
      }
      if (from_name++ == 0) first_from_name = s.path;
      s.rank = s.name_rank;
    }
    if (filter && !filter->count(s.rank)) continue;
    auto [it, fresh] = by_rank.try_emplace(s.rank);
    if (!fresh) {
      notes.push_back(s.path + ": rank " + std::to_string(s.rank) + " again (first in " +
                      it->second.path + ") — this trace is left out");
      continue;
    }
    it->second = std::move(s);
  }
  std::set<int> worlds;
  for (const auto& [r, s] : by_rank)
    if (s.world_size > 0) worlds.insert(s.world_size);
  if (worlds.size() > 1) {
    std::string list;
    for (int w : worlds) list += (list.empty() ? "" : ", ") + std::to_string(w);
    notes.push_back("the traces disagree on the world size (" + list +
                    "): are they one job's? Each is analysed as a rank of one job");
  }
  if (from_name > 0)
    notes.push_back(std::to_string(from_name) +
                    " trace(s) have no distributedInfo.rank: their rank is taken from the file "
                    "name (first: " +
                    first_from_name + ")");
  std::vector<GpuRankSummary> out;
  for (auto& [r, s] : by_rank) out.push_back(std::move(s));
  return out;
}

namespace {

// The root's analyses and outputs. Returns an exit status.
int analyse_and_write(const GpuRunOptions& opts, std::vector<GpuRankSummary>& ranks, int processes,
                      bool partial) {
  const std::string out_dir = (fs::path(opts.output_dir) / "cluster_analysis_output").string();
  io::Diagnostics diag;
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  io::OutputLedger::instance().begin(out_dir, diag);

  const auto inst = match_collectives(ranks);
  const auto waits = rank_waits(ranks, inst);
  const auto slow_r = find_slow_ranks(ranks, waits, inst);
  const auto slow_g = find_slow_groups(inst);
  std::vector<io::Table> tables;
  tables.push_back(step_trace_table(ranks));
  tables.push_back(collectives_table(inst));
  tables.push_back(collective_groups_table(inst));
  tables.push_back(rank_waits_table(waits));
  tables.push_back(kernels_topn_table(ranks, opts.top_n));
  tables.push_back(slow_ranks_table(slow_r));
  tables.push_back(slow_groups_table(slow_g));
  {
    io::Table m("rank_manifest");
    auto& rank = m.add_int("rank");
    auto& path = m.add_string("path");
    auto& fw = m.add_string("framework");
    auto& status = m.add_string("status");
    for (const auto& r : ranks) {
      rank.ints.push_back(r.rank);
      path.strings.push_back(r.path);
      fw.strings.push_back("kineto");
      status.strings.push_back(r.messages.empty() ? "ok" : "partial");
    }
    tables.push_back(std::move(m));
  }
  bool ok = true;
  if (opts.csv)
    for (const auto& t : tables)
      ok &= io::write_table_csv(t, (fs::path(out_dir) / (t.name + ".csv")).string(), diag);
  if (opts.hdf5) {
    io::Hdf5Meta meta;
    meta.input_path = opts.input_dir;
    meta.ranks = static_cast<int64_t>(ranks.size());
    meta.processes = processes;
    meta.extra.push_back({"framework", std::string("kineto")});
    std::vector<const io::Table*> ptrs;
    for (const auto& t : tables) ptrs.push_back(&t);
    ok &= io::write_tables_hdf5((fs::path(out_dir) / "cluster_analysis.h5").string(), ptrs, meta,
                                diag);
  }
  if (opts.html) {
    const auto find = [&](const char* name) -> const io::Table* {
      for (const auto& t : tables)
        if (t.name == name) return &t;
      return nullptr;
    };
    GpuReportInput rin;
    rin.input_path = opts.input_dir;
    rin.step_trace = find("step_trace");
    rin.collective_groups = find("collective_groups");
    rin.rank_waits = find("rank_waits");
    rin.kernels_topn = find("kernels_topn");
    rin.slow_ranks = find("slow_ranks");
    rin.slow_groups = find("slow_groups");
    rin.collective_instances = inst.size();
    ok &= write_gpu_report_html(rin, (fs::path(out_dir) / "report.html").string(), diag);
  }
  io::print_diagnostics(diag, opts.quiet);
  if (!opts.quiet) {
    int world = -1;
    size_t steps = 0;
    for (const auto& r : ranks) {
      world = std::max(world, r.world_size);
      steps = std::max(steps, r.steps.size());
    }
    std::printf("GPU job: %zu rank(s)%s, %zu step(s), %zu collective instance(s)\n", ranks.size(),
                world > 0 ? (" of world size " + std::to_string(world)).c_str() : "", steps,
                inst.size());
    if (slow_r.empty()) std::printf("slow ranks: none\n");
    for (const auto& s : slow_r)
      std::printf(
          "slow rank %d (cause: %s): last at %.0f%% of its collectives, others waited "
          "%s\n",
          s.rank, s.cause.c_str(), s.last_fraction * 100,
          report::fmt_us(static_cast<double>(s.blame_ns) / 1000.0).c_str());
    if (slow_g.empty()) std::printf("slow groups: none\n");
    for (const auto& g : slow_g)
      std::printf("slow group %s (%s, %lld ranks): %.2fx the median group's time per byte%s\n",
                  g.group.c_str(), g.type.c_str(), static_cast<long long>(g.group_size), g.ratio,
                  g.link.empty() ? "" : (", link " + g.link).c_str());
    std::printf("outputs: %s\n", out_dir.c_str());
  }
  if (!ok) return runtime::kExitFatal;
  return partial ? runtime::kExitPartial : runtime::kExitOk;
}

}  // namespace

int run_gpu_cluster(const mpi::MpiSession& mpi, const GpuRunOptions& opts) {
  // Discovery on the root; the list (path, bytes, name rank) broadcast.
  std::vector<char> buf;
  bool fatal = false;
  if (mpi.is_root()) {
    GpuDiscovery d = discover_gpu_traces(opts.input_dir);
    io::print_diagnostics(d.diag, opts.quiet);
    fatal = d.fatal;
    for (const auto& t : d.traces) {
      GpuRankSummary s;  // the codec carries path and name rank
      s.path = t.path;
      s.name_rank = t.name_rank;
      s.world_size = static_cast<int>(std::min<uint64_t>(t.bytes, INT32_MAX));
      encode_summary(s, buf);
    }
  }
  if (mpi.any(fatal)) return runtime::kExitFatal;
  mpi.broadcast(buf);
  std::vector<GpuTraceFile> traces;
  {
    std::vector<GpuRankSummary> list;
    decode_summaries(buf, list);
    for (const auto& s : list)
      traces.push_back({s.path, static_cast<uint64_t>(s.world_size), s.name_rank});
  }
  const auto owner = partition_traces(traces, mpi.size());
  std::vector<size_t> mine;
  for (size_t i = 0; i < traces.size(); ++i)
    if (owner[i] == mpi.rank()) mine.push_back(i);
  std::vector<GpuRankSummary> parsed(mine.size());
  const int threads = runtime::threads_per_process(opts.threads, mpi.local_size());
  runtime::parallel_for(mine.size(), threads,
                        [&](size_t i) { parsed[i] = summarize_trace_file(traces[mine[i]]); });
  std::vector<char> out;
  for (const auto& s : parsed) encode_summary(s, out);
  parsed.clear();
  auto gathered = mpi.gather_to_root(out);
  if (!mpi.is_root()) return static_cast<int>(mpi.max_idle_wait(runtime::kExitOk));

  std::vector<GpuRankSummary> all;
  for (const auto& b : gathered) decode_summaries(b, all);
  gathered.clear();
  bool partial = false;
  std::sort(all.begin(), all.end(),
            [](const GpuRankSummary& a, const GpuRankSummary& b) { return a.path < b.path; });
  for (const auto& s : all) {
    if (!s.parsed) partial = true;
    for (const auto& m : s.messages) partial |= m.rfind("error: ", 0) == 0;  // read in part
    if (opts.quiet) continue;
    for (const auto& m : s.messages) io::print_message(m);
  }
  std::vector<std::string> notes;
  size_t usable = 0;
  for (const auto& s : all) usable += s.parsed ? 1 : 0;
  const size_t filtered = opts.rank_filter ? 0 : usable;
  auto ranks = resolve_ranks(std::move(all), opts.rank_filter, notes);
  if (ranks.size() < filtered) partial = true;  // a duplicate or a trace with no rank
  if (!opts.quiet) {
    for (const auto& n : notes) io::print_message(n);
    io::print_message(
        "GPU job: msprof-analyze's documents (cluster_step_trace_time.csv, "
        "cluster_communication.json, ...) are written for Ascend jobs only; clusterscope's own "
        "tables are written");
  }
  int code = runtime::kExitFatal;
  if (ranks.empty()) {
    io::print_message(opts.input_dir + ": no usable GPU trace — see the messages above");
  } else {
    code = analyse_and_write(opts, ranks, mpi.size(), partial);
  }
  return static_cast<int>(mpi.max_idle_wait(code));
}

}  // namespace cs::gpu
