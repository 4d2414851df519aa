#pragma once
// The main() of every benchmark program: runs the benchmarks with the allocator settings
// clusterscope itself runs with (runtime/allocator_tuning.h).
//   int main(int argc, char** argv) { return cs::bench::run_benchmarks(argc, argv); }

#include <benchmark/benchmark.h>

#include "runtime/allocator_tuning.h"
#include "runtime/cpu_cores.h"

namespace cs::bench {

inline int run_benchmarks(int argc, char** argv) {
  cs::runtime::tune_allocator_for_batch_parsing(cs::runtime::usable_cores());
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace cs::bench
