// Kernel categories of GPU vendors' kernels: the same model on NVIDIA and AMD lands in the same
// rows (names from the pretty_h100 / pretty_mi300 TraceLens traces in tests/data).
#include "compare/kernel_category.h"

#include <gtest/gtest.h>

namespace cs::compare {
namespace {

KernelCategory gpu(std::string_view name, std::string_view op) {
  std::string_view ops[] = {op};
  KernelFacts f;
  f.name = name;
  f.ops = op.empty() ? std::span<const std::string_view>{} : std::span<const std::string_view>(ops);
  return classify_kernel(f);
}

TEST(KernelCategory, AmdAndNvidiaGemmsAndAttentionAlike) {
  // Under their framework op.
  EXPECT_EQ(
      gpu("Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT64x32x128_MI16x16x1", "aten::addmm"),
      KernelCategory::kMatmul);
  EXPECT_EQ(gpu("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "aten::addmm"),
            KernelCategory::kMatmul);
  EXPECT_EQ(gpu("attn_fwd", "aten::_flash_attention_forward"),
            KernelCategory::kFlashAttentionFwdCube);
  EXPECT_EQ(gpu("void flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128>>",
                "aten::_flash_attention_forward"),
            KernelCategory::kFlashAttentionFwdCube);
  // Without an op (unlinked kernels): by name.
  EXPECT_EQ(gpu("Cijk_Ailk_Bljk_HHS_BH_MT128x128x32", ""), KernelCategory::kCube);
  EXPECT_EQ(gpu("attn_bwd", ""), KernelCategory::kFlashAttentionBwdCube);
  EXPECT_EQ(gpu("void at::native::vectorized_elementwise_kernel<4>", ""),
            KernelCategory::kVectorNoTrans);
}

}  // namespace
}  // namespace cs::compare
