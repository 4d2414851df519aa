// Throughput of the mergeable statistics behind operators_topn: OperatorTable add / merge and
// QuantileSketch add / merge, in items per second.
//
//   bench_stats --benchmark_filter=Sketch
//
// Inputs are deterministic (fixed-seed log-normal durations, ~200 distinct kernel keys like a
// real kernel_details.csv), so runs compare across machines and commits.

#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "stats/operator_table.h"
#include "stats/quantile_sketch.h"

namespace {

// Log-normal kernel durations in microseconds (median ~20 us, long tail).
std::vector<double> durations(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(3.0, 1.2);
  std::vector<double> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

std::vector<std::string> keys(size_t n) {
  std::vector<std::string> k;
  for (size_t i = 0; i < n; ++i) k.push_back("KernelType" + std::to_string(i * 7919 % 1000));
  return k;
}

// One rank's table: `kernels` kernels spread over `nkeys` keys.
cs::stats::OperatorTable rank_table(int rank, size_t kernels, size_t nkeys) {
  const auto d = durations(kernels, static_cast<uint64_t>(rank) + 1);
  const auto k = keys(nkeys);
  cs::stats::OperatorTable t;
  for (size_t i = 0; i < kernels; ++i) t.add(k[(i * 31) % nkeys], d[i], rank);
  return t;
}

// Kernels added per second to one OperatorTable (string key lookup + stats + sketch).
void BM_OperatorTableAdd(benchmark::State& state) {
  const size_t n = 100000, nkeys = static_cast<size_t>(state.range(0));
  const auto d = durations(n, 1);
  const auto k = keys(nkeys);
  for (auto _ : state) {
    cs::stats::OperatorTable t;
    for (size_t i = 0; i < n; ++i) t.add(k[(i * 31) % nkeys], d[i], 0);
    benchmark::DoNotOptimize(t);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}
BENCHMARK(BM_OperatorTableAdd)->Arg(20)->Arg(200)->Unit(benchmark::kMillisecond);

// Rank tables merged per second (each ~200 keys, 20k kernels), as in the rank-order merge.
void BM_OperatorTableMerge(benchmark::State& state) {
  const int ranks = static_cast<int>(state.range(0));
  std::vector<cs::stats::OperatorTable> tables;
  for (int r = 0; r < ranks; ++r) tables.push_back(rank_table(r, 20000, 200));
  for (auto _ : state) {
    cs::stats::OperatorTable merged;
    for (const auto& t : tables) merged.merge(t);
    benchmark::DoNotOptimize(merged);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * ranks);
  state.SetLabel("items = rank tables of 200 keys");
}
BENCHMARK(BM_OperatorTableMerge)->Arg(64)->Arg(512)->Unit(benchmark::kMillisecond);

// Values added per second to one QuantileSketch.
void BM_QuantileSketchAdd(benchmark::State& state) {
  const size_t n = 1000000;
  const auto d = durations(n, 2);
  for (auto _ : state) {
    cs::stats::QuantileSketch s;
    for (double x : d) s.add(x);
    benchmark::DoNotOptimize(s);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}
BENCHMARK(BM_QuantileSketchAdd)->Unit(benchmark::kMillisecond);

// Sketches (each fed 10k values) merged per second.
void BM_QuantileSketchMerge(benchmark::State& state) {
  const size_t n = 1024;
  std::vector<cs::stats::QuantileSketch> sketches(n);
  for (size_t i = 0; i < n; ++i)
    for (double x : durations(10000, i + 100)) sketches[i].add(x);
  for (auto _ : state) {
    cs::stats::QuantileSketch merged;
    for (const auto& s : sketches) merged.merge(s);
    benchmark::DoNotOptimize(merged.quantile(0.99));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
  state.SetLabel("items = sketches of 10k values");
}
BENCHMARK(BM_QuantileSketchMerge)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
