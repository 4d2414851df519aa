#pragma once
// The device kernels a simulated transformer layer runs, with realistic torch_npu names, types,
// cores, shapes and typical durations on an Atlas A2 (seq 4096, hidden 4096, bf16).

#include <string_view>
#include <vector>

namespace cs::generator {

enum class Core { kAiCore, kAiVectorCore, kMixAic, kMixAiv, kAiCpu };

// "AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", "MIX_AIV", "AI_CPU".
const char* core_name(Core c);

struct KernelSpec {
  std::string_view name;  // kernel_details "Name", e.g. "aclnnMatmul_MatMulV3Common_MatMulV3"
  std::string_view type;  // "Type", e.g. "MatMulV3"
  Core core;
  int block_dim;
  int mix_block_dim;
  std::string_view input_shapes;  // without quotes: "4096,4096;4096,12288"
  std::string_view input_dtypes;
  std::string_view input_formats;
  std::string_view output_shapes;
  std::string_view output_dtypes;
  std::string_view output_formats;
  double base_us;    // typical duration at tp = 1; scaled down by tp for sharded kernels
  bool tp_sharded;   // duration divides by tp (matmuls, attention)
  double mac_ratio;  // cube MAC utilisation of a cube kernel, vector ratio of a vector kernel
};

// All kernel specs; indices into this table are what the simulation records.
const std::vector<KernelSpec>& kernel_catalog();

// Indices into kernel_catalog(), one per kernel the simulated layer program uses.
enum KernelId : int {
  kLayerNorm,
  kMatMulQkv,
  kFlashAttention,
  kMatMulProj,
  kAdd,
  kMatMulFc1,
  kFastGelu,
  kMatMulFc2,
  kCast,
  kFlashAttentionGrad,
  kLayerNormGrad,
  kFastGeluGrad,
  kInplaceAdd,
  kEmbedding,
  kMatMulLmHead,
  kCrossEntropy,
  kApplyAdamW,
  kLpNorm,
  kMul,
  kKernelIdCount
};

// Distinct kernel types whose Type starts with `prefix` (case-insensitive), catalog order.
std::vector<std::string_view> kernel_types_matching(std::string_view prefix);

// The framework op that launches a kernel of this Type, as torch_npu names it: "MatMulV3" ->
// "aten::matmul" ("aten::empty" for an unknown type).
std::string_view framework_op_name(std::string_view type);

}  // namespace cs::generator
