// Profiles built from the real Kineto and trace_view samples: op forests, kernel links, steps.
#include <gtest/gtest.h>

#include <string>

#include "compare/input_source.h"
#include "compare/profile.h"
#include "readers/kineto_trace.h"
#include "readers/trace_view.h"

namespace cs::compare {
namespace {

const std::string kRank0 = std::string(CS_TEST_DATA) + "/kineto/sampled_rank-0.json.gz";
const std::string kTraceView = std::string(CS_TEST_DATA) + "/ascend/trace_view.json";

Profile load_profile(const std::string& path, bool npu, std::optional<int64_t> step = {}) {
  readers::Trace t;
  io::Diagnostics diag;
  EXPECT_TRUE(npu ? readers::read_trace_view(path, t, diag)
                  : readers::read_kineto_trace(path, t, diag));
  Profile p;
  p.source = path;
  EXPECT_TRUE(build_profile(std::move(t), npu, step, p, diag));
  return p;
}

TEST(Profile, KinetoRank0LinksKernelsThroughCorrelation) {
  const Profile p = load_profile(kRank0, false);
  EXPECT_EQ(p.kernels.size(), 1204u);  // 1154 kernels + 40 memcpy + 10 memset
  EXPECT_EQ(p.linked_kernels, 1188u);  // launch call found inside a cpu_op (Python cross-check)
  size_t comm = 0;
  for (const auto& k : p.kernels) comm += k.communication;
  EXPECT_EQ(comm, 10u);
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(p.steps[0].number, 551);
  EXPECT_EQ(p.steps[1].number, 552);
  EXPECT_EQ(p.ops.size(), 2329u);  // every cpu_op (ProfilerStep#N is a user_annotation here)
  // Device time sums up the tree: the roots hold every linked kernel once.
  double roots_us = 0, linked_us = 0;
  for (int32_t r : p.roots) roots_us += p.ops[static_cast<size_t>(r)].device_us;
  for (const auto& k : p.kernels)
    if (k.op >= 0) linked_us += k.dur_us;
  EXPECT_DOUBLE_EQ(roots_us, linked_us);
  // Memcpy is SDMA, a cutlass GEMM under aten::mm/addmm is Matmul.
  bool saw_sdma = false, saw_matmul = false;
  for (const auto& k : p.kernels) {
    saw_sdma |= k.kind == readers::EventKind::kMemcpy && k.category == KernelCategory::kSdma;
    saw_matmul |= k.category == KernelCategory::kMatmul;
  }
  EXPECT_TRUE(saw_sdma);
  EXPECT_TRUE(saw_matmul);
}

TEST(Profile, KinetoStepSelection) {
  const Profile p = load_profile(kRank0, false, 552);
  EXPECT_EQ(p.kernels.size(), 602u);
  size_t comm = 0;
  for (const auto& k : p.kernels) comm += k.communication;
  EXPECT_EQ(comm, 5u);

  readers::Trace t;
  io::Diagnostics diag;
  ASSERT_TRUE(readers::read_kineto_trace(kRank0, t, diag));
  Profile missing;
  EXPECT_FALSE(build_profile(std::move(t), false, 7, missing, diag));
  ASSERT_TRUE(diag.has_errors());
  EXPECT_NE(diag.items().back().hint.find("551, 552"), std::string::npos);
}

TEST(Profile, TraceViewLinksHardwareTasksThroughAsyncNpuFlows) {
  const Profile p = load_profile(kTraceView, true);
  EXPECT_EQ(p.kernels.size(), 274u);  // 276 tasks less 2 MEMCPY_ASYNC (DMA, not kernels)
  EXPECT_EQ(p.linked_kernels, 274u);  // 274 async_npu flows end on hardware tasks
  EXPECT_TRUE(p.has_overlap);
  EXPECT_NEAR(p.overlap_computing_us, 1788.2505, 1e-6);
  EXPECT_NEAR(p.overlap_free_us, 9481.667, 1e-6);
  EXPECT_EQ(p.overlap_comm_not_overlapped_us, 0.0);
  ASSERT_FALSE(p.steps.empty());
  EXPECT_EQ(p.steps[0].number, 1);
  // The first task (aclnnInplaceZero_ZerosLikeAiCore_ZerosLike) was launched by aclnnInplaceZero.
  const auto& first = p.kernels.front();
  EXPECT_EQ(p.str(first.name), "aclnnInplaceZero_ZerosLikeAiCore_ZerosLike");
  ASSERT_GE(first.op, 0);
  EXPECT_EQ(p.str(p.ops[static_cast<size_t>(first.op)].name), "aclnnInplaceZero");
  const auto chain = op_chain(p, first.op);
  ASSERT_GE(chain.size(), 2u);
  EXPECT_EQ(chain[1], "aten::zero_");
}

TEST(Profile, DetectsSides) {
  io::Diagnostics diag;
  SideInput a, b, c;
  ASSERT_TRUE(detect_side(kRank0, a, diag));
  EXPECT_EQ(a.kind, SideKind::kKinetoTrace);
  EXPECT_FALSE(a.npu);
  ASSERT_TRUE(detect_side(kTraceView, b, diag));
  EXPECT_EQ(b.kind, SideKind::kTraceView);
  EXPECT_TRUE(b.npu);
  ASSERT_TRUE(detect_side(std::string(CS_TEST_DATA) + "/kineto", c, diag));
  EXPECT_EQ(c.kind, SideKind::kClusterDirectory);
  EXPECT_EQ(c.ranks, 2);
  EXPECT_EQ(c.timeline, kRank0);
  SideInput d;
  EXPECT_FALSE(detect_side("/nonexistent/x", d, diag));
  EXPECT_FALSE(detect_side(std::string(CS_TEST_DATA) + "/ascend/kernel_details.csv", d, diag));
}

}  // namespace
}  // namespace cs::compare
