#include "compare/kernel_category.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace cs::compare {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool contains_any(std::string_view hay, std::initializer_list<std::string_view> needles) {
  for (auto n : needles)
    if (hay.find(n) != std::string_view::npos) return true;
  return false;
}

enum class OpClass { kNone, kFlashAttention, kConv, kMatmul, kPagedAttention };

OpClass op_class(std::string_view op) {
  const std::string l = lower(op);
  if (contains_any(l, {"flash_attention", "fusion_attention", "flashattn", "xformers_flash",
                       "efficient_attention", "flashattention", "fusionattention"}))
    return OpClass::kFlashAttention;
  if (contains_any(l, {"paged_attention", "pagedattention"})) return OpClass::kPagedAttention;
  if (l.rfind("aten::conv", 0) == 0 || l.rfind("aten::_conv", 0) == 0 ||
      l.rfind("aten::cudnn_conv", 0) == 0 || l.rfind("npu::npu_conv", 0) == 0)
    return OpClass::kConv;
  for (std::string_view mm :
       {"aten::addmm", "aten::bmm", "aten::mm", "aten::matmul", "aten::baddbmm"})
    if (l == mm) return OpClass::kMatmul;
  // MegEngine's op types (formats.md §11): Convolution*, MatrixMul, BatchedMatrixMul.
  if (l.rfind("convolution", 0) == 0) return OpClass::kConv;
  if (l == "matrixmul" || l == "batchedmatrixmul") return OpClass::kMatmul;
  return OpClass::kNone;
}

// Matrix-unit (tensor core / MFMA) kernels by name: NVIDIA cuBLAS/cutlass/cuDNN, AMD
// rocBLAS/Tensile (Cijk_*), hipBLASLt and composable-kernel GEMMs, and attention kernels of
// FlashAttention, xformers and Triton (attn_fwd / attn_bwd).
bool gpu_cube_name(std::string_view l) {
  return contains_any(l, {"gemm", "conv", "cutlass", "wgrad", "gemvx", "flash", "fmha", "xmma",
                          "cijk_", "hipblaslt", "mfma", "wmma", "attn_fwd", "attn_bwd"});
}

bool npu_cube_name(std::string_view l) {
  return contains_any(
      l, {"matmul", "conv", "flashattention", "fusionattention", "gemm", "_mm_", "mmad", "cube"});
}

}  // namespace

std::string_view category_label(KernelCategory c) {
  switch (c) {
    case KernelCategory::kFlashAttentionFwdCube:
      return "Flash Attention Time(Forward)(Cube)";
    case KernelCategory::kFlashAttentionFwdVector:
      return "Flash Attention Time(Forward)(Vector)";
    case KernelCategory::kFlashAttentionBwdCube:
      return "Flash Attention Time(Backward)(Cube)";
    case KernelCategory::kFlashAttentionBwdVector:
      return "Flash Attention Time(Backward)(Vector)";
    case KernelCategory::kConvFwd:
      return "Conv Time(Forward)";
    case KernelCategory::kConvBwd:
      return "Conv Time(Backward)";
    case KernelCategory::kMatmul:
      return "Matmul Time";
    case KernelCategory::kPagedAttention:
      return "Paged Attention Time";
    case KernelCategory::kVectorTrans:
      return "Vector Time(Trans)";
    case KernelCategory::kVectorNoTrans:
      return "Vector Time(No Trans)";
    case KernelCategory::kCube:
      return "Cube Time";
    case KernelCategory::kSdma:
      return "SDMA Time(Tensor Move)";
    case KernelCategory::kMc2:
      return "MC2 Time";
    case KernelCategory::kOther:
      return "Other Time";
    case KernelCategory::kCount:
      break;
  }
  return "?";
}

bool is_backward_op_name(std::string_view name) {
  if (name.rfind("autograd::engine::evaluate_function", 0) == 0) return true;
  const std::string l = lower(name);
  return contains_any(l, {"backward", "bwd", "grad"});
}

KernelCategory classify_kernel(const KernelFacts& k) {
  const std::string name = lower(k.name);
  if (k.memcpy) return KernelCategory::kSdma;
  if (k.memset) return KernelCategory::kOther;
  if (k.npu) {
    if (k.task_type == "AI_CPU") return KernelCategory::kOther;
    if (contains_any(name, {"memcpy", "tensormove", "sdma"})) return KernelCategory::kSdma;
    if (contains_any(name,
                     {"matmulallreduce", "allgathermatmul", "matmulreducescatter",
                      "alltoallallgatherbatchmatmul", "batchmatmulreducescatteralltoall", "mc2"}))
      return KernelCategory::kMc2;
  }
  const bool cube = k.npu ? npu_cube_name(name) : gpu_cube_name(name);
  bool backward = k.backward_thread;
  OpClass cls = OpClass::kNone;
  for (auto op : k.ops) {
    if (cls == OpClass::kNone) cls = op_class(op);
    if (!backward && is_backward_op_name(op)) backward = true;
  }
  if (cls == OpClass::kNone) {
    if (contains_any(name, {"flash_attention", "flashattention", "flash_fwd", "flash_bwd",
                            "fusionattention", "fmha", "attn_fwd", "attn_bwd"}))
      cls = OpClass::kFlashAttention;
    else if (contains_any(name, {"paged_attention", "pagedattention"}))
      cls = OpClass::kPagedAttention;
  }
  if (cls == OpClass::kFlashAttention &&
      (name.find("bwd") != std::string::npos || name.find("grad") != std::string::npos))
    backward = true;
  switch (cls) {
    case OpClass::kFlashAttention:
      if (backward)
        return cube ? KernelCategory::kFlashAttentionBwdCube
                    : KernelCategory::kFlashAttentionBwdVector;
      return cube ? KernelCategory::kFlashAttentionFwdCube
                  : KernelCategory::kFlashAttentionFwdVector;
    case OpClass::kPagedAttention:
      return KernelCategory::kPagedAttention;
    case OpClass::kConv:
      return backward ? KernelCategory::kConvBwd : KernelCategory::kConvFwd;
    case OpClass::kMatmul:
      return KernelCategory::kMatmul;
    case OpClass::kNone:
      break;
  }
  if (cube) return KernelCategory::kCube;
  if (contains_any(name, {"cast", "transdata", "transpose"})) return KernelCategory::kVectorTrans;
  return KernelCategory::kVectorNoTrans;
}

}  // namespace cs::compare
