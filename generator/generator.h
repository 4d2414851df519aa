#pragma once
// Synthetic cluster generator: simulates a Megatron-style training job (TP x PP x DP, tensor
// index fastest) step by step and writes one torch_npu (or MindSpore) rank directory per rank,
// with every per-rank file clusterscope reads, plus OUT/truth.json naming the injected faults.
// generator/job/ simulates the job and renders its text files, generator/db_export/ writes its
// databases; this folder runs both into an output directory.
//
//   GeneratorOptions o; o.ranks = 16; o.tp = 4; o.pp = 2;
//   o.slow_ranks.push_back({5, 2.0});          // rank 5 computes 2x slower
//   io::Diagnostics diag;
//   GenerateSummary s;
//   if (!generate_cluster("/tmp/c16", o, diag, &s)) { /* diag says why */ }

#include <cstdint>
#include <string>

#include "generator/job/options.h"
#include "io/diagnostics.h"

namespace cs::generator {

struct GenerateSummary {
  int ranks = 0;
  int tp = 0, pp = 0, dp = 0, steps = 0;
  uint64_t files = 0;
  uint64_t bytes = 0;
  double seconds = 0;
};

// Validates, simulates and writes the cluster into `out_dir` (created if missing; existing rank
// directories of an earlier run are not removed). False with diagnostics on invalid options or
// a write failure. `summary` (optional) receives counts, bytes and seconds.
bool generate_cluster(const std::string& out_dir, const GeneratorOptions& opts,
                      io::Diagnostics& diag, GenerateSummary* summary = nullptr);

}  // namespace cs::generator
