// Generator throughput: ranks written per second and MB/s, for a small cluster (64 ranks) and
// the target size (1,024 ranks, tp 8, pp 4, dp 32; realistic per-rank file sizes).
//   bench_generate --benchmark_filter=1024   (writes ~0.6 GB under $TMPDIR, removed afterwards)
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "generator/generator.h"

namespace {

void BM_Generate(benchmark::State& state) {
  namespace fs = std::filesystem;
  std::string tmpl = (fs::temp_directory_path() / "cs_bench_generate_XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) {
    state.SkipWithError("cannot create a temp directory");
    return;
  }
  cs::generator::GeneratorOptions o;
  o.ranks = static_cast<int>(state.range(0));
  o.tp = 8;
  o.pp = o.ranks >= 32 ? 4 : 1;
  o.steps = 4;
  o.seed = 7;
  o.slow_ranks.push_back({3, 1.3});
  uint64_t bytes = 0;
  for (auto _ : state) {
    cs::io::Diagnostics diag;
    cs::generator::GenerateSummary s;
    if (!cs::generator::generate_cluster(tmpl, o, diag, &s)) {
      state.SkipWithError("generate_cluster failed");
      break;
    }
    bytes += s.bytes;
  }
  std::error_code ec;
  fs::remove_all(tmpl, ec);
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["ranks/s"] = benchmark::Counter(static_cast<double>(o.ranks),
                                                 benchmark::Counter::kIsIterationInvariantRate);
  state.counters["MB/rank"] =
      static_cast<double>(bytes) / 1e6 / static_cast<double>(state.iterations()) / o.ranks;
}

BENCHMARK(BM_Generate)->Arg(64)->Arg(1024)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
