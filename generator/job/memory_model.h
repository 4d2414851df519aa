#pragma once
// The memory of a simulated rank, as torch_npu's caching allocator would record it with
// profile_memory=True (docs/formats.md, memory files), consistent with the simulated job:
//   before the first step: the stage's weights, gradients and optimizer state (never released,
//     as real profiles show blocks allocated before the capture); stage 0 holds the embedding,
//     the last stage the output layer; --memory-imbalance adds its GB to the optimizer state;
//   each step, placed inside the step's kernels: the 1F1B schedule of the stage (warm-up
//     forwards, then one forward / one backward, then the cool-down backwards), each forward
//     allocating its micro-batch's activations (one block per layer) and a short-lived
//     workspace, each backward releasing that micro-batch's activations; the optimizer's
//     temporaries at the step's end; --memory-leak keeps MB_PER_STEP more allocated each step.
//   So stage s holds min(pp - s, micro-batches) micro-batches' activations at its peak.
// Reserved memory follows the allocated peak so far (2 MiB segments, 8% slack), as a caching
// allocator never gives memory back during training. Sizes are multiples of 4 KiB, so the text
// files' KB and MB values are exact and both exports carry the same numbers.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "generator/job/options.h"
#include "generator/job/simulation.h"
#include "io/json/json_writer.h"

namespace cs::generator {

struct WriteContext;

struct MemoryBlock {
  const char* op = "";
  int64_t bytes = 0;
  int64_t alloc_ns = 0;
  int64_t release_ns = -1;  // -1: never released
  // The PTA pool's totals just after the allocation / the release.
  int64_t alloc_allocated = 0, alloc_reserved = 0;
  int64_t release_allocated = 0, release_reserved = 0;
};

// The PTA pool's totals after one allocation or release.
struct PoolSample {
  int64_t t_ns = 0;
  int64_t allocated = 0;
  int64_t reserved = 0;
};

struct MemoryTrace {
  std::vector<MemoryBlock> blocks;                         // by allocation time
  std::vector<PoolSample> pta;                             // by time
  int64_t ge_allocated = 0, ge_reserved = 0, ge_t_ns = 0;  // GE's one record
  std::vector<PoolSample> app;  // every 20 ms: APP reserved (allocated unused)
  int device = 0;
};

// The CANN modules npu_module_mem.csv / NPU_MODULE_MEM list (ENUM_MODULE ids 0..n-1) and the
// reserved memory of each at time t (APP follows the pool's reserved memory).
const std::vector<std::string>& memory_modules();
int64_t module_reserved(size_t module, int64_t pool_reserved);

// The rank's memory; deterministic for (opts.seed, rank).
MemoryTrace simulate_memory(const WriteContext& ctx, int rank, const RankTimeline& tl);

// The text files.
std::string render_operator_memory_csv(const MemoryTrace& m);
std::string render_memory_record_csv(const MemoryTrace& m);
std::string render_npu_module_mem_csv(const MemoryTrace& m);

// truth.json's "memory" (written only when the job has memory files): {"imbalance": [{"rank",
// "gb"}], "leak": [{"rank", "mb_per_step"}], "capacity_gb" (only with --memory-capacity)}.
void write_memory_truth(io::JsonWriter& w, const GeneratorOptions& o);

// "R:GB" / "R:MB_PER_STEP". False with `error` set.
bool parse_memory_imbalance(std::string_view text, MemoryImbalance& out, std::string& error);
bool parse_memory_leak(std::string_view text, MemoryLeak& out, std::string& error);

}  // namespace cs::generator
