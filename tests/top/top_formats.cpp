// FLOPs of kernel_details.csv rows in Ascend private layouts (NC1HWC0 / FRACTAL_Z), on the real
// text_level1 rank 0 table (an AlexNet-like net, batch 32, FLOAT so C0 = 8). Values by hand:
// 2 * N * Cout * Ho * Wo * Cin * Kh * Kw with Cin = C1*C0, Cout = C1'*C0 of the NC1HWC0 sides and
// Kh*Kw = FRACTAL_Z dim0 / C1, python3:
//   Conv2D2  (x 32,8,27,27,8  w 200,12,16,8  y 32,24,27,27,8): 2*32*192*27*27*64*25  = 14332723200
//   Conv2D3  (x 32,24,13,13,8 w 216,24,16,8  y 32,48,13,13,8): 2*32*384*13*13*192*9  = 7176978432
//   Conv2D4  (x 32,48,13,13,8 w 432,16,16,8  y 32,32,13,13,8): 2*32*256*13*13*384*9  = 9569304576
//   Conv2D4  (x 32,32,13,13,8 w 288,16,16,8  y 32,32,13,13,8): 2*32*256*13*13*256*9  = 6379536384
//   Conv2DBackpropFilter9 (x 32,8,27,27,8 dy 32,24,27,27,8 dw 200,12,16,8)           = 14332723200
//   Conv2D1 / Conv2DBackpropFilter10: input 32,1,224,224,8 holds one C0 block (3 real channels
//   padded to 8): not derivable -> NaN ("-"). (torchvision AlexNet conv2: 64->192, 5x5 on 27x27:
//   448 MFLOP per image, x32 = 14.33 GFLOP.)
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "top/top_formats.h"
#include "top/top_profile.h"

namespace cs::report {
namespace {

const std::string kCsv = std::string(CS_TEST_DATA) +
                         "/ascend-real/text_level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/"
                         "kernel_details.csv";

const top::OpCall* find(const std::vector<top::OpCall>& calls, const std::string& name,
                        const std::string& shapes_prefix) {
  for (const auto& c : calls)
    if (c.name == name && c.input_shapes.rfind(shapes_prefix, 0) == 0) return &c;
  return nullptr;
}

TEST(TopFormats, ConvFlopsFromNc1hwc0AndFractalZ) {
  std::vector<top::OpCall> calls;
  std::string used;
  io::Diagnostics diag;
  ASSERT_TRUE(top::load_op_calls(kCsv, calls, used, diag));
  struct Want {
    const char* name;
    const char* shapes;
    double flops;
  };
  for (const Want w : {Want{"Conv2D2", "32,8,27,27,8", 14332723200.0},
                       Want{"Conv2D3", "32,24,13,13,8", 7176978432.0},
                       Want{"Conv2D4", "32,48,13,13,8", 9569304576.0},
                       Want{"Conv2D4", "32,32,13,13,8", 6379536384.0},
                       Want{"Conv2DBackpropFilter9", "32,8,27,27,8", 14332723200.0}}) {
    const top::OpCall* c = find(calls, w.name, w.shapes);
    ASSERT_NE(c, nullptr) << w.name << " " << w.shapes;
    EXPECT_EQ(c->flops, w.flops) << w.name << " " << w.shapes;
  }
  for (const char* n : {"Conv2D1", "Conv2DBackpropFilter10"}) {
    const top::OpCall* c = find(calls, n, "");
    ASSERT_NE(c, nullptr) << n;
    EXPECT_TRUE(std::isnan(c->flops)) << n << " " << c->flops;
  }
  // MatMul rows are FORMAT_ND: unchanged, 2*M*N*K (32x9216 by 9216x4096).
  const top::OpCall* mm = find(calls, "aclnnAddmm_MatMulCommon_MatMulV2", "32,9216");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->flops, 2.0 * 32 * 4096 * 9216);
}

TEST(TopFormats, LayoutsToLogicalShapes) {
  EXPECT_TRUE(top::has_private_format("NC1HWC0;FRACTAL_Z;NCHW"));
  EXPECT_FALSE(top::has_private_format("FORMAT_ND;FORMAT_ND"));
  // FRACTAL_NZ [N1, M1, M0, N0] = [4, 2, 16, 16] is a 32 x 64 matrix: 32x64 by 64x128.
  const double f = top::estimate_flops_with_formats("MatMul", {{4, 2, 16, 16}, {64, 128}},
                                                    "FRACTAL_NZ;ND", {{32, 128}}, "ND");
  EXPECT_EQ(f, 2.0 * 32 * 128 * 64);
  // An unknown private layout: "-".
  EXPECT_TRUE(std::isnan(
      top::estimate_flops_with_formats("Add", {{1, 2, 3, 4, 5, 6}}, "C1HWNCOC0", {}, "")));
}

}  // namespace
}  // namespace cs::report
