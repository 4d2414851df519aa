#include "gpu/gpu_compare.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "gpu/gpu_collectives.h"
#include "gpu/gpu_discovery.h"
#include "gpu/gpu_run.h"
#include "io/csv/csv_writer.h"
#include "io/diagnostics_print.h"
#include "io/output_ledger.h"
#include "runtime/cpu_cores.h"
#include "runtime/exit_status.h"
#include "runtime/task_runner.h"

namespace cs::gpu {

namespace fs = std::filesystem;

namespace {

struct Stat {
  double sum = 0, sq = 0;
  int64_t n = 0;
  void add(double v) {
    sum += v;
    sq += v * v;
    ++n;
  }
  double mean() const { return n ? sum / static_cast<double>(n) : 0; }
  double stdev() const {
    if (n < 2) return 0;
    const double m = mean();
    return std::sqrt(std::max(0.0, sq / static_cast<double>(n) - m * m));
  }
};

std::string verdict(const Stat& b, const Stat& c) {
  const double diff = c.mean() - b.mean();
  const double noise = 2 * std::max(b.stdev(), c.stdev());
  if (std::fabs(diff) < 0.05 * std::fabs(b.mean()) || std::fabs(diff) <= noise) return "same";
  return diff > 0 ? "regression" : "improvement";
}

const char* const kCategories[] = {
    "computing", "comm_not_overlapped", "overlapped", "communication", "memory", "free", "step"};

double category_us(const GpuStep& s, int c) {
  const int64_t v[] = {s.computing_ns,  s.comm_not_overlapped_ns,
                       s.overlapped_ns, s.communication_ns,
                       s.memory_ns,     s.free_ns,
                       s.window_ns};
  return static_cast<double>(v[c]) / 1000.0;
}

}  // namespace

std::vector<GpuRankSummary> load_gpu_job(const std::string& dir, int threads, bool quiet,
                                         bool& ok) {
  GpuDiscovery d = discover_gpu_traces(dir);
  io::print_diagnostics(d.diag, quiet);
  if (d.fatal) {
    ok = false;
    return {};
  }
  std::vector<GpuRankSummary> all(d.traces.size());
  runtime::parallel_for(all.size(), threads,
                        [&](size_t i) { all[i] = summarize_trace_file(d.traces[i]); });
  for (const auto& s : all)
    for (const auto& m : s.messages)
      if (!quiet) io::print_message(m);
  std::vector<std::string> notes;
  auto ranks = resolve_ranks(std::move(all), std::nullopt, notes);
  for (const auto& n : notes)
    if (!quiet) io::print_message(n);
  ok = !ranks.empty();
  return ranks;
}

std::string noise_verdict(const std::vector<double>& base, const std::vector<double>& comparison) {
  Stat b, c;
  for (double v : base) b.add(v);
  for (double v : comparison) c.add(v);
  return verdict(b, c);
}

io::Table rank_compare_table(const std::vector<GpuRankSummary>& base,
                             const std::vector<GpuRankSummary>& comparison) {
  std::map<int, const GpuRankSummary*> cmp;
  for (const auto& r : comparison) cmp[r.rank] = &r;
  io::Table t("rank_compare");
  auto& rank = t.add_int("rank");
  auto& cat = t.add_string("category");
  auto& bu = t.add_double("base_us", "us");
  auto& cu = t.add_double("comparison_us", "us");
  auto& du = t.add_double("diff_us", "us");
  auto& dr = t.add_double("diff_ratio", "ratio");
  auto& v = t.add_string("verdict");
  for (const auto& b : base) {
    auto it = cmp.find(b.rank);
    if (it == cmp.end()) continue;
    for (int c = 0; c < 7; ++c) {
      Stat sb, sc;
      for (const auto& s : b.steps) sb.add(category_us(s, c));
      for (const auto& s : it->second->steps) sc.add(category_us(s, c));
      rank.ints.push_back(b.rank);
      cat.strings.push_back(kCategories[c]);
      bu.doubles.push_back(sb.mean());
      cu.doubles.push_back(sc.mean());
      du.doubles.push_back(sc.mean() - sb.mean());
      dr.doubles.push_back(sb.mean() != 0 ? (sc.mean() - sb.mean()) / sb.mean() : 0);
      v.strings.push_back(verdict(sb, sc));
    }
  }
  return t;
}

io::Table collective_compare_table(const std::vector<GpuRankSummary>& base,
                                   const std::vector<GpuRankSummary>& comparison) {
  struct Side {
    Stat latency, busbw;
  };
  std::map<std::string, Side> sides[2];
  int i = 0;
  for (const auto* runs : {&base, &comparison}) {
    for (const auto& in : match_collectives(*runs)) {
      Side& s = sides[i][in.type];
      s.latency.add(static_cast<double>(in.latency_ns) / 1000.0);
      if (in.busbw_gbps >= 0) s.busbw.add(in.busbw_gbps);
    }
    ++i;
  }
  io::Table t("collective_compare");
  auto& type = t.add_string("type");
  auto& bn = t.add_int("base_instances");
  auto& bl = t.add_double("base_latency_us", "us");
  auto& bb = t.add_double("base_busbw_gbps", "GB/s");
  auto& cn = t.add_int("comparison_instances");
  auto& cl = t.add_double("comparison_latency_us", "us");
  auto& cb = t.add_double("comparison_busbw_gbps", "GB/s");
  auto& du = t.add_double("diff_us", "us");
  auto& dr = t.add_double("diff_ratio", "ratio");
  auto& v = t.add_string("verdict");
  std::map<std::string, int> types;
  for (auto& s : sides)
    for (auto& [k, x] : s) types[k] = 0;
  for (const auto& [k, unused] : types) {
    const Side& b = sides[0][k];
    const Side& c = sides[1][k];
    type.strings.push_back(k);
    bn.ints.push_back(b.latency.n);
    bl.doubles.push_back(b.latency.mean());
    bb.doubles.push_back(b.busbw.n ? b.busbw.mean() : -1);
    cn.ints.push_back(c.latency.n);
    cl.doubles.push_back(c.latency.mean());
    cb.doubles.push_back(c.busbw.n ? c.busbw.mean() : -1);
    du.doubles.push_back(c.latency.mean() - b.latency.mean());
    dr.doubles.push_back(
        b.latency.mean() != 0 ? (c.latency.mean() - b.latency.mean()) / b.latency.mean() : 0);
    v.strings.push_back(b.latency.n && c.latency.n ? verdict(b.latency, c.latency) : "missing");
  }
  return t;
}

int run_gpu_compare(const GpuCompareOptions& opts) {
  const int threads = runtime::threads_per_process(opts.threads, 1);
  bool ok_b = false, ok_c = false;
  auto base = load_gpu_job(opts.base_dir, threads, opts.quiet, ok_b);
  auto cmp = load_gpu_job(opts.comparison_dir, threads, opts.quiet, ok_c);
  if (!ok_b || !ok_c) {
    io::print_message("compare: no usable GPU trace on one side — see the messages above");
    return runtime::kExitFatal;
  }
  const std::string out = (fs::path(opts.output_dir) / "comparison_output").string();
  io::Diagnostics diag;
  std::error_code ec;
  fs::create_directories(out, ec);
  io::OutputLedger::instance().begin(out, diag);
  const io::Table ranks = rank_compare_table(base, cmp);
  const io::Table colls = collective_compare_table(base, cmp);
  bool ok = io::write_table_csv(ranks, out + "/rank_compare.csv", diag);
  ok &= io::write_table_csv(colls, out + "/collective_compare.csv", diag);
  io::print_diagnostics(diag, opts.quiet);
  if (!opts.quiet) {
    const auto& verdicts = ranks.columns[6];
    int regress = 0, improve = 0;
    for (const auto& s : verdicts.strings) {
      regress += s == "regression";
      improve += s == "improvement";
    }
    std::printf(
        "GPU runs: %zu vs %zu rank(s); %d regression(s), %d improvement(s) per rank and "
        "category beyond the step-to-step noise\n",
        base.size(), cmp.size(), regress, improve);
    for (size_t r = 0; r < colls.rows(); ++r)
      if (colls.columns[9].strings[r] != "same")
        std::printf("collective %s: %s, mean latency %.3f -> %.3f us\n",
                    colls.columns[0].strings[r].c_str(), colls.columns[9].strings[r].c_str(),
                    colls.columns[2].doubles[r], colls.columns[5].doubles[r]);
    std::printf("outputs: %s\n", out.c_str());
  }
  io::OutputLedger::instance().finish();
  return ok ? runtime::kExitOk : runtime::kExitFatal;
}

}  // namespace cs::gpu
