#include "gpu/gpu_npu_compare.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "cluster/cluster_loader.h"
#include "gpu/gpu_compare.h"
#include "gpu/gpu_run.h"
#include "io/csv/csv_writer.h"
#include "io/diagnostics_print.h"
#include "io/output_ledger.h"
#include "runtime/cpu_cores.h"
#include "runtime/exit_status.h"

namespace cs::gpu {

namespace fs = std::filesystem;

namespace {

const char* const kNpuCategories[] = {"computing", "comm_not_overlapped", "free", "step"};
constexpr int kN = 4;

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

}  // namespace

std::vector<std::vector<double>> gpu_rank_categories(const GpuRankSummary& r) {
  std::vector<std::vector<double>> out(kN);
  for (const auto& s : r.steps) {
    const double c = static_cast<double>(s.computing_ns) / 1000.0;
    const double n = static_cast<double>(s.comm_not_overlapped_ns) / 1000.0;
    const double f = static_cast<double>(s.free_ns + s.memory_ns) / 1000.0;
    out[0].push_back(c), out[1].push_back(n), out[2].push_back(f), out[3].push_back(c + n + f);
  }
  return out;
}

std::vector<std::vector<double>> npu_rank_categories(const load::RankData& r) {
  std::vector<std::vector<double>> out(kN);
  readers::StepTraceFile scratch;
  const readers::StepTraceFile& st = r.step_trace.read(scratch);
  for (const auto& row : st.rows) {
    const double c = st.get(row, "Computing"), n = st.get(row, "Communication(Not Overlapped)"),
                 f = st.get(row, "Free");
    if (std::isnan(c) || std::isnan(n) || std::isnan(f)) continue;
    out[0].push_back(c), out[1].push_back(n), out[2].push_back(f), out[3].push_back(c + n + f);
  }
  return out;
}

io::Table gpu_npu_compare_table(const std::vector<GpuRankSummary>& gpu,
                                const std::vector<load::RankData>& npu, bool gpu_is_base) {
  std::map<int, const load::RankData*> by_rank;
  for (const auto& r : npu) by_rank[r.rank()] = &r;
  io::Table t("rank_compare");
  auto& rank = t.add_int("rank");
  auto& cat = t.add_string("category");
  auto& bu = t.add_double("base_us", "us");
  auto& cu = t.add_double("comparison_us", "us");
  auto& du = t.add_double("diff_us", "us");
  auto& dr = t.add_double("diff_ratio", "ratio");
  auto& v = t.add_string("verdict");
  for (const auto& g : gpu) {
    const auto it = by_rank.find(g.rank);
    if (it == by_rank.end()) continue;
    const auto gc = gpu_rank_categories(g), nc = npu_rank_categories(*it->second);
    if (nc[0].empty()) continue;  // no step trace on the NPU side
    for (int c = 0; c < kN; ++c) {
      const auto& b = gpu_is_base ? gc[c] : nc[c];
      const auto& x = gpu_is_base ? nc[c] : gc[c];
      const double mb = mean(b), mx = mean(x);
      rank.ints.push_back(g.rank);
      cat.strings.push_back(kNpuCategories[c]);
      bu.doubles.push_back(mb);
      cu.doubles.push_back(mx);
      du.doubles.push_back(mx - mb);
      dr.doubles.push_back(mb != 0 ? (mx - mb) / mb : 0);
      v.strings.push_back(noise_verdict(b, x));
    }
  }
  return t;
}

int run_gpu_npu_compare(const mpi::MpiSession& mpi, const GpuNpuCompareOptions& opts) {
  cluster::LoadOptions lo;
  lo.input_dir = opts.npu_dir;
  lo.threads = opts.threads;
  runtime::PhaseLog log(false);
  auto npu = cluster::load_cluster(mpi, lo, log);
  if (!mpi.is_root()) return npu.fatal ? runtime::kExitFatal : runtime::kExitOk;
  if (npu.fatal) {
    io::print_message(opts.npu_dir + ": " + npu.fatal_message);
    return runtime::kExitFatal;
  }
  bool ok_g = false;
  const auto gpu =
      load_gpu_job(opts.gpu_dir, runtime::threads_per_process(opts.threads, 1), opts.quiet, ok_g);
  if (!ok_g) {
    io::print_message(opts.gpu_dir + ": no usable GPU trace — see the messages above");
    return runtime::kExitFatal;
  }
  const io::Table t = gpu_npu_compare_table(gpu, npu.ranks, opts.gpu_is_base);
  if (t.rows() == 0) {
    io::print_message(
        "compare: the GPU job and the Ascend cluster share no rank with a step breakdown — "
        "give two jobs of the same model and world size");
    return runtime::kExitFatal;
  }
  const std::string out = (fs::path(opts.output_dir) / "comparison_output").string();
  io::Diagnostics diag;
  std::error_code ec;
  fs::create_directories(out, ec);
  io::OutputLedger::instance().begin(out, diag);
  const bool ok = io::write_table_csv(t, out + "/rank_compare.csv", diag);
  io::print_diagnostics(diag, opts.quiet);
  if (!opts.quiet) {
    std::map<std::string, std::pair<int, int>> per_cat;  // regressions, improvements
    for (size_t r = 0; r < t.rows(); ++r) {
      auto& p = per_cat[t.columns[1].strings[r]];
      p.first += t.columns[6].strings[r] == "regression";
      p.second += t.columns[6].strings[r] == "improvement";
    }
    std::printf("GPU vs NPU: base %s, comparison %s; %zu rank(s) compared\n",
                opts.gpu_is_base ? "GPU (Kineto)" : "NPU (Ascend)",
                opts.gpu_is_base ? "NPU (Ascend)" : "GPU (Kineto)", t.rows() / kN);
    for (const char* c : kNpuCategories)
      std::printf("%s: %d rank(s) slower, %d faster beyond the step-to-step noise\n", c,
                  per_cat[c].first, per_cat[c].second);
    std::printf("outputs: %s\n", out.c_str());
  }
  io::OutputLedger::instance().finish();
  return ok ? runtime::kExitOk : runtime::kExitFatal;
}

}  // namespace cs::gpu
