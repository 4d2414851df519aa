#pragma once
// Computing-time categories of msprof-analyze compare_tools (formats.md §8) and the rule that
// puts a device kernel into one of them.

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace cs::compare {

enum class KernelCategory : uint8_t {
  kFlashAttentionFwdCube,
  kFlashAttentionFwdVector,
  kFlashAttentionBwdCube,
  kFlashAttentionBwdVector,
  kConvFwd,
  kConvBwd,
  kMatmul,
  kPagedAttention,
  kVectorTrans,
  kVectorNoTrans,
  kCube,
  kSdma,
  kMc2,
  kOther,
  kCount
};
constexpr size_t kCategoryCount = static_cast<size_t>(KernelCategory::kCount);

// Row label of a category in overall_metrics.csv, e.g. "Flash Attention Time(Forward)(Cube)".
std::string_view category_label(KernelCategory c);

// What is known about one device kernel when classifying it.
struct KernelFacts {
  std::string_view name;       // kernel / task name
  std::string_view task_type;  // NPU "Task Type" / accelerator core ("AI_CPU", ...), may be empty
  bool npu = false;
  bool memcpy = false;           // GPU gpu_memcpy
  bool memset = false;           // GPU gpu_memset
  bool backward_thread = false;  // launched from the autograd (backward) thread
  // Names of the framework ops enclosing the launch, innermost first.
  std::span<const std::string_view> ops;
};

// The category of one compute kernel. By the enclosing framework op first (flash_attention,
// fusion_attention, flashattn, xformers_flash, efficient_attention -> FA; aten::conv* -> Conv;
// aten::addmm|bmm|mm|matmul -> Matmul), backward when an enclosing op name says
// backward/bwd/grad or the launch came from the backward thread; else by the kernel name
// (GPU: gemm|conv|cutlass|wgrad|gemvx, AMD Cijk_*|hipblaslt|mfma, attn_fwd|attn_bwd -> Cube; NPU:
// MatMul/Conv/... -> Cube; cast|transdata| transpose -> Vector Trans; else Vector No Trans). memcpy
// -> SDMA, memset and AI_CPU -> Other. Example: kernel "void cutlass::Kernel<...>" under "aten::mm"
// -> kMatmul.
KernelCategory classify_kernel(const KernelFacts& k);

// True when an op name says the op is part of the backward pass.
// Example: "autograd::engine::evaluate_function: MmBackward0" -> true.
bool is_backward_op_name(std::string_view name);

}  // namespace cs::compare
