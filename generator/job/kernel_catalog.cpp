#include "generator/job/kernel_catalog.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace cs::generator {

const char* core_name(Core c) {
  switch (c) {
    case Core::kAiCore:
      return "AI_CORE";
    case Core::kAiVectorCore:
      return "AI_VECTOR_CORE";
    case Core::kMixAic:
      return "MIX_AIC";
    case Core::kMixAiv:
      return "MIX_AIV";
    case Core::kAiCpu:
      return "AI_CPU";
  }
  return "?";
}

const std::vector<KernelSpec>& kernel_catalog() {
  // Order must follow KernelId.
  static const std::vector<KernelSpec> kSpecs = {
      {"aclnnLayerNorm_LayerNormV3_LayerNormV3", "LayerNormV3", Core::kAiVectorCore, 48, 0,
       "4096,1,4096;4096;4096", "DT_BF16;DT_BF16;DT_BF16", "ND;ND;ND",
       "4096,1,4096;4096,1,1;4096,1,1", "DT_BF16;FLOAT;FLOAT", "ND;ND;ND", 95, false, 0.62},
      {"aclnnMatmul_MatMulV3Common_MatMulV3", "MatMulV3", Core::kAiCore, 20, 0,
       "4096,4096;12288,4096", "DT_BF16;DT_BF16", "ND;ND", "4096,12288", "DT_BF16", "ND", 1450,
       true, 0.82},
      {"aclnnFlashAttentionScore_FlashAttentionScore_FlashAttentionScore", "FlashAttentionScore",
       Core::kMixAic, 24, 48, "4096,1,4096;4096,1,4096;4096,1,4096", "DT_BF16;DT_BF16;DT_BF16",
       "ND;ND;ND", "1,32,4096,8;1,32,4096,8;0;4096,1,4096", "FLOAT;FLOAT;DT_BF16;DT_BF16",
       "ND;ND;ND;ND", 2300, true, 0.55},
      {"aclnnMatmul_MatMulCommon_MatMulV2", "MatMulV2", Core::kAiCore, 16, 0, "4096,4096;4096,4096",
       "DT_BF16;DT_BF16", "ND;ND", "4096,4096", "DT_BF16", "ND", 480, true, 0.80},
      {"aclnnAdd_AddAiCore_Add", "Add", Core::kAiVectorCore, 40, 0, "4096,1,4096;4096,1,4096",
       "DT_BF16;DT_BF16", "ND;ND", "4096,1,4096", "DT_BF16", "ND", 38, false, 0.71},
      {"aclnnMatmul_MatMulV3Common_MatMulV3", "MatMulV3", Core::kAiCore, 20, 0,
       "4096,4096;22016,4096", "DT_BF16;DT_BF16", "ND;ND", "4096,22016", "DT_BF16", "ND", 2600,
       true, 0.84},
      {"aclnnFastGelu_FastGelu_FastGelu", "FastGelu", Core::kAiVectorCore, 40, 0, "4096,11008",
       "DT_BF16", "ND", "4096,11008", "DT_BF16", "ND", 160, true, 0.66},
      {"aclnnMatmul_MatMulV3Common_MatMulV3", "MatMulV3", Core::kAiCore, 20, 0,
       "4096,11008;4096,11008", "DT_BF16;DT_BF16", "ND;ND", "4096,4096", "DT_BF16", "ND", 1300,
       true, 0.83},
      {"aclnnCast_CastAiCore_Cast", "Cast", Core::kAiVectorCore, 40, 0, "4096,1,4096", "DT_BF16",
       "ND", "4096,1,4096", "FLOAT", "ND", 30, false, 0.52},
      {"aclnnFlashAttentionScoreGrad_FlashAttentionScoreGrad_FlashAttentionScoreGrad",
       "FlashAttentionScoreGrad", Core::kMixAic, 24, 48,
       "4096,1,4096;4096,1,4096;4096,1,4096;4096,1,4096", "DT_BF16;DT_BF16;DT_BF16;DT_BF16",
       "ND;ND;ND;ND", "4096,1,4096;4096,1,4096;4096,1,4096", "DT_BF16;DT_BF16;DT_BF16", "ND;ND;ND",
       5200, true, 0.50},
      {"aclnnLayerNormBackward_LayerNormGradV3_LayerNormGradV3", "LayerNormGradV3",
       Core::kAiVectorCore, 48, 0, "4096,1,4096;4096,1,4096;4096,1,1;4096,1,1;4096",
       "DT_BF16;DT_BF16;FLOAT;FLOAT;DT_BF16", "ND;ND;ND;ND;ND", "4096,1,4096;4096;4096",
       "DT_BF16;FLOAT;FLOAT", "ND;ND;ND", 120, false, 0.57},
      {"aclnnFastGeluBackward_FastGeluGrad_FastGeluGrad", "FastGeluGrad", Core::kAiVectorCore, 40,
       0, "4096,11008;4096,11008", "DT_BF16;DT_BF16", "ND;ND", "4096,11008", "DT_BF16", "ND", 220,
       true, 0.61},
      {"aclnnInplaceAdd_AddAiCore_Add", "Add", Core::kAiVectorCore, 40, 0, "4096,4096;4096,4096",
       "FLOAT;FLOAT", "ND;ND", "4096,4096", "FLOAT", "ND", 60, true, 0.70},
      {"aclnnEmbedding_GatherV2AiCore_GatherV2", "GatherV2", Core::kAiVectorCore, 40, 0,
       "50304,4096;1,4096", "DT_BF16;INT64", "ND;ND", "1,4096,4096", "DT_BF16", "ND", 180, false,
       0.35},
      {"aclnnMatmul_MatMulV3Common_MatMulV3", "MatMulV3", Core::kAiCore, 20, 0,
       "4096,4096;50304,4096", "DT_BF16;DT_BF16", "ND;ND", "4096,50304", "DT_BF16", "ND", 3200,
       true, 0.85},
      {"aclnnCrossEntropyLoss_SoftmaxCrossEntropyWithLogits_SoftmaxCrossEntropyWithLogits",
       "SoftmaxCrossEntropyWithLogits", Core::kAiVectorCore, 48, 0, "4096,50304;4096",
       "FLOAT;INT64", "ND;ND", "4096;4096,50304", "FLOAT;FLOAT", "ND;ND", 260, true, 0.58},
      {"aclnnApplyAdamWV2_ApplyAdamWV2_ApplyAdamWV2", "ApplyAdamWV2", Core::kAiVectorCore, 48, 0,
       "201326592;201326592;201326592;201326592;1", "FLOAT;FLOAT;FLOAT;FLOAT;INT64",
       "ND;ND;ND;ND;ND", "201326592;201326592;201326592", "FLOAT;FLOAT;FLOAT", "ND;ND;ND", 2400,
       true, 0.74},
      {"aclnnNorm_LpNormV2_LpNormV2", "LpNormV2", Core::kAiVectorCore, 48, 0, "201326592", "FLOAT",
       "ND", "", "FLOAT", "ND", 150, true, 0.69},
      {"aclnnMul_MulAiCore_Mul", "Mul", Core::kAiVectorCore, 40, 0, "201326592;", "FLOAT;FLOAT",
       "ND;ND", "201326592", "FLOAT", "ND", 90, true, 0.72},
  };
  return kSpecs;
}

std::vector<std::string_view> kernel_types_matching(std::string_view prefix) {
  std::vector<std::string_view> out;
  auto lower = [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  };
  for (const auto& k : kernel_catalog()) {
    if (k.type.size() < prefix.size()) continue;
    bool match = true;
    for (size_t i = 0; i < prefix.size() && match; ++i)
      match = lower(k.type[i]) == lower(prefix[i]);
    if (match && std::find(out.begin(), out.end(), k.type) == out.end()) out.push_back(k.type);
  }
  return out;
}

std::string_view framework_op_name(std::string_view type) {
  static const std::pair<std::string_view, std::string_view> kMap[] = {
      {"MatMul", "aten::matmul"},
      {"FlashAttentionScoreGrad", "npu_fusion_attention_grad"},
      {"FlashAttention", "npu_fusion_attention"},
      {"LayerNormGrad", "aten::native_layer_norm_backward"},
      {"LayerNorm", "aten::layer_norm"},
      {"FastGeluGrad", "npu_fast_gelu_backward"},
      {"FastGelu", "npu_fast_gelu"},
      {"Cast", "aten::_to_copy"},
      {"InplaceAdd", "aten::add_"},
      {"Add", "aten::add"},
      {"Gather", "aten::embedding"},
      {"Embedding", "aten::embedding"},
      {"CrossEntropy", "aten::cross_entropy_loss"},
      {"SoftmaxCrossEntropy", "aten::cross_entropy_loss"},
      {"ApplyAdamW", "npu_apply_adam_w"},
      {"LpNorm", "aten::norm"},
      {"Mul", "aten::mul"},
  };
  for (const auto& [prefix, op] : kMap)
    if (type.substr(0, prefix.size()) == prefix) return op;
  return "aten::empty";
}

}  // namespace cs::generator
