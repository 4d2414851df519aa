// `compare` on a MegEngine chrome_timeline.json (tests/data/megengine/dynamic.chrome_timeline.json,
// described in tests/readers/test_megengine.cpp), by hand from its device spans (µs):
//   HostToDevice 5-9 (copy: SDMA), Convolution 30-130 (Conv forward), MatrixMul 130-210
//   (Matmul), Elemwise 215-235 and, on gpu0:1, 280-290 (Vector), CollectiveComm 240-300
//   (communication).
//   Computing = 4 + 100 + 80 + 20 + 10 = 214; communication not under compute = 60 - 10 = 50;
//   E2E = 300 - 5 = 295; Free = the gaps 9-30, 210-215, 235-240 = 21 + 5 + 5 = 31;
//   214 + 50 + 31 = 295.
#include <gtest/gtest.h>

#include "compare/input_source.h"
#include "compare/overall_metrics.h"
#include "compare/profile.h"

namespace cs::compare {
namespace {

const std::string kTimeline = std::string(CS_TEST_DATA) + "/megengine/dynamic.chrome_timeline.json";

TEST(MegEngineCompare, OverallMetricsAndTheirInvariants) {
  SideInput in;
  io::Diagnostics diag;
  ASSERT_TRUE(detect_side(kTimeline, in, diag));
  EXPECT_FALSE(in.npu);
  EXPECT_NE(in.note.find("MegEngine"), std::string::npos) << in.note;
  Profile p;
  ASSERT_TRUE(load_side(in, {}, p, diag));
  EXPECT_EQ(p.kernels.size(), 6u);
  EXPECT_EQ(p.linked_kernels, 5u);  // every op span, through its KernelLaunch flow
  const OverallMetrics m = overall_metrics(p);
  EXPECT_NEAR(m.computing_us, 214, 1e-6);
  EXPECT_NEAR(m.uncovered_comm_us, 50, 1e-6);
  EXPECT_NEAR(m.free_us, 31, 1e-6);
  EXPECT_NEAR(m.e2e_us, 295, 1e-6);
  EXPECT_EQ(m.comm_count, 1);
  auto cat = [&](KernelCategory c) { return m.category_us[static_cast<size_t>(c)]; };
  EXPECT_NEAR(cat(KernelCategory::kConvFwd), 100, 1e-6);
  EXPECT_NEAR(cat(KernelCategory::kMatmul), 80, 1e-6);
  EXPECT_NEAR(cat(KernelCategory::kVectorNoTrans), 30, 1e-6);
  EXPECT_NEAR(cat(KernelCategory::kSdma), 4, 1e-6);
  // The invariants: categories add up to Computing; Computing + Uncovered + Free = E2E.
  double sum = 0;
  for (double v : m.category_us) sum += v;
  EXPECT_NEAR(sum, m.computing_us, 0.01 * m.computing_us);
  EXPECT_NEAR(m.computing_us + m.uncovered_comm_us + m.free_us, m.e2e_us, 0.01 * m.e2e_us);
}

// cupti.chrome_timeline.json: CUPTI kernels on stream threads 30 and 31, each launched inside its
// op on the worker, its KernelLink flow ending at the kernel's END (MegEngine's writer):
//   implicit_convolve_sgemm 50-150 (Convolution: Conv forward), sgemm_128x64_nn 150-230
//   (MatrixMul: Matmul), elemwise_kernel 240-260 (Elemwise: Vector), ncclKernel 250-320
//   (CollectiveComm: communication, 10 µs under the elemwise kernel).
//   Computing = 100 + 80 + 20 = 200; uncovered communication = 70 - 10 = 60; E2E = 320 - 50 =
//   270; Free = the gap 230-240 = 10; 200 + 60 + 10 = 270.
TEST(MegEngineCompare, CuptiKernelsLinkedToTheirOpsByTheFlowEndingAtTheKernelEnd) {
  SideInput in;
  io::Diagnostics diag;
  ASSERT_TRUE(
      detect_side(std::string(CS_TEST_DATA) + "/megengine/cupti.chrome_timeline.json", in, diag));
  Profile p;
  ASSERT_TRUE(load_side(in, {}, p, diag));
  ASSERT_EQ(p.kernels.size(), 4u);
  EXPECT_EQ(p.linked_kernels, 4u);  // 0 when the flow is looked for at the kernel's start
  for (const auto& k : p.kernels) {
    ASSERT_GE(k.op, 0) << p.str(k.name);
    EXPECT_LT(k.launch_ns, k.start_ns);  // launched on the worker before it ran
  }
  const OverallMetrics m = overall_metrics(p);
  EXPECT_NEAR(m.computing_us, 200, 1e-6);
  EXPECT_NEAR(m.uncovered_comm_us, 60, 1e-6);
  EXPECT_NEAR(m.free_us, 10, 1e-6);
  EXPECT_NEAR(m.e2e_us, 270, 1e-6);
  auto cat = [&](KernelCategory c) { return m.category_us[static_cast<size_t>(c)]; };
  EXPECT_NEAR(cat(KernelCategory::kConvFwd), 100, 1e-6);
  EXPECT_NEAR(cat(KernelCategory::kMatmul), 80, 1e-6);
  EXPECT_NEAR(cat(KernelCategory::kVectorNoTrans), 20, 1e-6);
  double sum = 0;
  for (double v : m.category_us) sum += v;
  EXPECT_NEAR(sum, m.computing_us, 0.01 * m.computing_us);
  EXPECT_NEAR(m.computing_us + m.uncovered_comm_us + m.free_us, m.e2e_us, 0.01 * m.e2e_us);
}

}  // namespace
}  // namespace cs::compare
