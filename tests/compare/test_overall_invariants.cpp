// The two invariants of overall_metrics for every trace the tests read, each side loaded the way
// `compare` loads it (io/input_kind.h decides what the file is):
//   * the category rows add up to Computing Time;
//   * Computing + Uncovered Communication + Free = E2E (both within 1%).
// On the real torch_npu rank directories, Computing and Uncovered Communication also agree with
// the producer's step_trace_time.csv (within 10%), and waits / DMA are no compute kernels.
#include <gtest/gtest.h>

#include <string>

#include "compare/input_source.h"
#include "compare/overall_metrics.h"
#include "compare/profile.h"
#include "support/test_data.h"

namespace cs::compare {
namespace {

using cs::test::kData;
const std::string kText1 = kData + "/ascend-real/text_level1/";

Profile load_side_profile(const std::string& path) {
  SideInput in;
  io::Diagnostics diag;
  Profile p;
  EXPECT_TRUE(detect_side(path, in, diag)) << path;
  EXPECT_TRUE(load_side(in, {}, p, diag)) << path;
  return p;
}

double category_sum(const OverallMetrics& m) {
  double s = 0;
  for (double v : m.category_us) s += v;
  return s;
}

void expect_invariants(const std::string& path, const OverallMetrics& m) {
  ASSERT_GT(m.e2e_us, 0) << path;
  EXPECT_NEAR(category_sum(m), m.computing_us, 0.01 * m.computing_us + 1e-6) << path;
  EXPECT_NEAR(m.computing_us + m.uncovered_comm_us + m.free_us, m.e2e_us, 0.01 * m.e2e_us) << path;
  EXPECT_GE(m.free_us, -1e-6) << path;
}

TEST(OverallInvariants, EveryTraceTheTestsRead) {
  for (const std::string rel :
       {"/kineto/sampled_rank-0.json.gz", "/kineto/sampled_rank-1.json.gz",
        "/ascend/trace_view.json",
        "/ascend-real/text_level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json.gz",
        "/ascend-real/text_level1/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json.gz",
        "/kineto-variants/array_format_resnet50_worker0.pt.trace.json.gz",
        "/kineto-variants/pretty_h100_falconsai.json.gz",
        "/kineto-variants/pretty_mi300_falconsai.json.gz",
        "/kineto-variants/hta_compare_base.json.gz", "/kineto-variants/hta_compare_test.json.gz",
        "/megengine/dynamic.chrome_timeline.json"}) {
    const std::string path = kData + rel;
    const Profile p = load_side_profile(path);
    expect_invariants(path, overall_metrics(p));
  }
}

TEST(OverallInvariants, OverlappingKernelsShareTheirTime) {
  // A [0, 10 µs) Matmul and B [5, 15 µs) Vector: 5 µs alone each, 5 µs shared -> 7.5 µs each.
  const auto shares = exclusive_category_us({{{0, 10000}, KernelCategory::kMatmul},
                                             {{5000, 15000}, KernelCategory::kVectorNoTrans},
                                             {{20000, 21000}, KernelCategory::kMatmul}});
  EXPECT_NEAR(shares[static_cast<size_t>(KernelCategory::kMatmul)], 8.5, 1e-9);
  EXPECT_NEAR(shares[static_cast<size_t>(KernelCategory::kVectorNoTrans)], 7.5, 1e-9);
}

// The producer's own numbers (step_trace_time.csv of each rank, step 50, µs):
//   rank0: Computing 8873.756, Communication(Not Overlapped) 101963.203, Free 25744.05
//   rank1: Computing 8878.295, Communication(Not Overlapped) 96359.047, Free 26675.274
// and kernel_details.csv's compute rows (Accelerator Core AI_CORE / AI_VECTOR_CORE / MIX_AIV /
// DSA_SQE): 187 tasks per rank, python3:
//   sum(float(r['Duration(us)']) for r in csv.DictReader(open(f)) if r['Type'] !=
//   'hcom_allReduce_')
//   -> 8873.8 (rank0)
TEST(OverallInvariants, NpuRankAgreesWithStepTraceTime) {
  struct Want {
    int rank;
    double computing, uncovered;
  };
  for (const Want w : {Want{0, 8873.756, 101963.203}, Want{1, 8878.295, 96359.047}}) {
    const std::string path = kText1 + "rank" + std::to_string(w.rank) +
                             "_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json.gz";
    const Profile p = load_side_profile(path);
    const OverallMetrics m = overall_metrics(p);
    expect_invariants(path, m);
    EXPECT_NEAR(m.computing_us, w.computing, 0.10 * w.computing);
    EXPECT_NEAR(m.uncovered_comm_us, w.uncovered, 0.10 * w.uncovered);
    EXPECT_EQ(m.computing_count, 187);
    // The compute tasks alone add up to the producer's Computing (before any scaling): no
    // Notify Wait (112 tasks, 112.5 ms), EVENT_WAIT or SDMA among them.
    double compute_sum = 0;
    for (const auto& k : p.kernels) {
      if (k.communication) continue;
      const std::string_view n = p.str(k.name);
      EXPECT_TRUE(n != "Notify Wait" && n != "EVENT_WAIT" && n != "SDMA" && n != "MEMCPY_ASYNC")
          << n;
      compute_sum += k.dur_us;
    }
    EXPECT_NEAR(compute_sum, w.computing, 0.01 * w.computing);
    // SDMA (tensor move kernels) and Vector are shares of Computing, not of the waits.
    EXPECT_LT(m.category_us[static_cast<size_t>(KernelCategory::kVectorNoTrans)], m.computing_us);
    EXPECT_LT(m.category_us[static_cast<size_t>(KernelCategory::kSdma)], 0.1 * m.computing_us);
  }
}

}  // namespace
}  // namespace cs::compare
