#pragma once
// An expert-parallel (MoE) job, `generate --ep E` (E divides dp): the expert-parallel groups
// (Megatron's: E consecutive data-parallel ranks of one tensor index and pipeline stage), their
// "exp" entry in parallel_group_info, and the MLP matmuls recorded as GroupedMatmul kernels whose
// first input dimension is the number of tokens routed to this rank's experts. The routing is
// uneven: each rank has a fixed share (0.7..1.3 of the mean, from the seed) and each call varies
// by up to 10%. Durations are the dense MLP's; no all-to-all dispatch is simulated.

#include <string>
#include <vector>

#include "generator/job/kernel_catalog.h"
#include "generator/job/simulation.h"
#include "generator/job/writers.h"

namespace cs::generator {

// The global ranks of rank r's expert-parallel group, ascending (empty without --ep).
std::vector<int> expert_group_ranks(const GeneratorOptions& o, const Topology& t, int r);

// The HCCL-style group id of rank r's expert-parallel group (its parallel_group_info key).
std::string expert_group_id(const GeneratorOptions& o, const Topology& t, int r);

// The kernel rank r records for event e: under --ep an MLP matmul becomes a GroupedMatmul with
// this call's routed tokens (its shapes kept in `storage`, which the returned spec points into);
// otherwise the catalog's spec.
struct MoeSpec {
  KernelSpec spec;
  std::string input_shapes, output_shapes;
};
const KernelSpec& recorded_kernel(const WriteContext& ctx, int r, const KernelEvent& e,
                                  MoeSpec& storage);

// Routed tokens of one GroupedMatmul call (the first dimension of its first input).
int routed_tokens(const GeneratorOptions& o, int r, const KernelEvent& e);

}  // namespace cs::generator
