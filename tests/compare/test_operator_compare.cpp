// Operator, kernel and communication compare on small inline traces (diff-test style).
#include <gtest/gtest.h>

#include <string>

#include "compare/communication_compare.h"
#include "compare/kernel_category.h"
#include "compare/kernel_compare.h"
#include "compare/name_map.h"
#include "compare/operator_compare.h"
#include "io/csv/csv_writer.h"
#include "readers/kineto_trace.h"

namespace cs::compare {
namespace {

// A Kineto trace: each op (name, start, dur) on thread 1 launches one kernel (name, dur) 1 µs
// after it starts, linked by an ac2g flow.
struct Op {
  std::string name;
  int start, dur;
  std::string kernel;
  double kernel_dur;
  std::string shape = "[[2, 3]]";
};

Profile make(const std::vector<Op>& ops) {
  std::string j = R"({"traceEvents": [)";
  int id = 0;
  for (const auto& o : ops) {
    const std::string ts = std::to_string(o.start), launch = std::to_string(o.start + 1);
    const std::string kts = std::to_string(o.start + 1000);
    const std::string sid = std::to_string(++id);
    j += R"({"ph": "X", "cat": "cpu_op", "name": ")" + o.name + R"(", "pid": 1, "tid": 1, "ts": )" +
         ts + R"(, "dur": )" + std::to_string(o.dur) + R"(, "args": {"Input Dims": )" + o.shape +
         "}},";
    j += R"({"ph": "s", "cat": "ac2g", "id": )" + sid + R"(, "pid": 1, "tid": 1, "ts": )" + launch +
         "},";
    j += R"({"ph": "f", "cat": "ac2g", "id": )" + sid + R"(, "pid": 0, "tid": 7, "ts": )" + kts +
         R"(, "bp": "e"},)";
    j += R"({"ph": "X", "cat": "kernel", "name": ")" + o.kernel +
         R"(", "pid": 0, "tid": 7, "ts": )" + kts + R"(, "dur": )" + std::to_string(o.kernel_dur) +
         "},";
  }
  j += R"({"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}}]})";
  readers::Trace t;
  io::Diagnostics diag;
  simdjson::padded_string p(j);
  EXPECT_TRUE(readers::parse_kineto_trace(p, "inline", t, diag));
  EXPECT_TRUE(diag.empty()) << diag.items().front().to_string();
  Profile prof;
  EXPECT_TRUE(build_profile(std::move(t), false, std::nullopt, prof, diag));
  return prof;
}

TEST(OperatorCompare, AlignsByLcsWithUnmatchedRows) {
  const Profile base = make({{"aten::mm", 0, 10, "gemm_a", 5},
                             {"aten::add", 20, 10, "add_k", 2},
                             {"aten::relu", 40, 10, "relu_k", 1}});
  const Profile comp = make({{"aten::mm", 0, 10, "gemm_b", 4},
                             {"aten::mul", 20, 10, "mul_k", 3},
                             {"aten::relu", 40, 10, "relu_k", 1.5}});
  ASSERT_EQ(base.linked_kernels, 3u);
  const io::Table t = operator_compare_table(base, comp, {});
  EXPECT_EQ(io::table_to_csv(t),
            "order,base_op,comparison_op,base_input_shape,comparison_input_shape,base_device_us,"
            "comparison_device_us,base_kernel_count,comparison_kernel_count,diff_us,diff_ratio\n"
            "0,aten::mm,aten::mm,\"[[2, 3]]\",\"[[2, 3]]\",5,4,1,1,-1,0.8\n"
            "1,aten::add,,\"[[2, 3]]\",,2,0,1,0,-2,0\n"
            "2,,aten::mul,,\"[[2, 3]]\",0,3,0,1,3,inf\n"
            "3,aten::relu,aten::relu,\"[[2, 3]]\",\"[[2, 3]]\",1,1.5,1,1,0.5,1.5\n");
}

TEST(OperatorCompare, NameMapAndInputShapes) {
  const Profile base =
      make({{"Optimizer.step#SGD.step", 0, 10, "k", 1}, {"aten::mm", 20, 10, "k", 1, "[[4, 4]]"}});
  const Profile comp = make({{"Optimizer.step#NpuFusedSGD.step", 0, 10, "k", 1},
                             {"aten::mm", 20, 10, "k", 1, "[[8, 8]]"}});
  NameMap map;
  io::Diagnostics diag;
  ASSERT_TRUE(parse_name_map(R"({"Optimizer.step#SGD.step": "Optimizer.step#NpuFusedSGD.step"})",
                             "map.json", map, diag));
  OperatorCompareOptions o;
  EXPECT_EQ(operator_compare_table(base, comp, o).rows(), 3u);  // the renamed op is unmatched
  o.name_map = &map;
  EXPECT_EQ(operator_compare_table(base, comp, o).rows(), 2u);
  o.use_input_shape = true;
  EXPECT_EQ(operator_compare_table(base, comp, o).rows(), 3u);  // shapes differ for aten::mm

  NameMap bad;
  io::Diagnostics d2;
  EXPECT_FALSE(parse_name_map(R"({"a": 1})", "map.json", bad, d2));
  ASSERT_TRUE(d2.has_errors());
  EXPECT_EQ(d2.items().front().file, "map.json");
  EXPECT_FALSE(parse_name_map("[1", "map.json", bad, d2));
}

TEST(OperatorCompare, DrillsIntoOpsWithManyKernels) {
  // A parent op holding two children, each launching one kernel.
  std::vector<Op> ops = {
      {"Block", 0, 100, "k0", 1}, {"aten::mm", 10, 20, "k1", 2}, {"aten::add", 50, 20, "k2", 3}};
  const Profile p = make(ops);
  ASSERT_EQ(p.roots.size(), 1u);
  EXPECT_EQ(p.ops[static_cast<size_t>(p.roots[0])].kernel_count, 3);
  EXPECT_DOUBLE_EQ(p.ops[static_cast<size_t>(p.roots[0])].device_us, 6.0);
  EXPECT_EQ(operator_sequence(p, -1).size(), 1u);
  EXPECT_EQ(operator_sequence(p, 5).size(), 1u);
  const auto seq = operator_sequence(p, 2);
  ASSERT_EQ(seq.size(), 2u);
  EXPECT_EQ(p.str(p.ops[static_cast<size_t>(seq[0])].name), "aten::mm");
}

TEST(KernelCompare, GroupsByNameAndShape) {
  const Profile base = make({{"aten::mm", 0, 10, "gemm", 5}, {"aten::mm", 20, 10, "gemm", 7}});
  const Profile comp = make({{"aten::mm", 0, 10, "gemm", 4}});
  const io::Table t = kernel_compare_table(base, comp, false);
  ASSERT_EQ(t.rows(), 1u);
  EXPECT_EQ(t.find("key")->strings[0], "gemm");
  EXPECT_EQ(t.find("base_count")->ints[0], 2);
  EXPECT_DOUBLE_EQ(t.find("base_total_us")->doubles[0], 12);
  EXPECT_DOUBLE_EQ(t.find("base_min_us")->doubles[0], 5);
  EXPECT_DOUBLE_EQ(t.find("base_max_us")->doubles[0], 7);
  EXPECT_DOUBLE_EQ(t.find("diff_us")->doubles[0], -8);
  const io::Table ts = kernel_compare_table(base, comp, true);
  EXPECT_EQ(ts.find("key")->strings[0], "gemm | [[2, 3]]");
}

TEST(CommunicationCompare, CollectiveTypes) {
  EXPECT_EQ(
      collective_type(
          "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"),
      "sendrecv");
  EXPECT_EQ(
      collective_type("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
      "allreduce");
  EXPECT_EQ(collective_type("ncclDevKernel_AllGather_RING_LL"), "allgather");
  EXPECT_EQ(collective_type("hcom_allReduce__844_2_1"), "allreduce");
  EXPECT_EQ(collective_type("hcom_reduceScatter__1"), "reducescatter");
  EXPECT_EQ(collective_type("hcom_receive__3"), "receive");
  EXPECT_EQ(collective_type("whatever", "all_gather"), "allgather");
  EXPECT_EQ(collective_type("x", "recv"), "receive");
}

TEST(CommunicationCompare, RealGpuTraceAgainstItself) {
  readers::Trace t;
  io::Diagnostics diag;
  ASSERT_TRUE(readers::read_kineto_trace(
      std::string(CS_TEST_DATA) + "/kineto/sampled_rank-0.json.gz", t, diag));
  Profile p;
  ASSERT_TRUE(build_profile(std::move(t), false, std::nullopt, p, diag));
  const io::Table c = communication_compare_table(p, p);
  ASSERT_EQ(c.rows(), 1u);
  EXPECT_EQ(c.find("op_type")->strings[0], "sendrecv");
  EXPECT_EQ(c.find("base_calls")->ints[0], 10);
  EXPECT_DOUBLE_EQ(c.find("base_total_us")->doubles[0], 396199.0);
  EXPECT_DOUBLE_EQ(c.find("diff_ratio")->doubles[0], 1.0);
}

TEST(KernelCategory, Rules) {
  const std::string_view mm[] = {"aten::mm"};
  KernelFacts f;
  f.name = "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm>";
  f.ops = mm;
  EXPECT_EQ(classify_kernel(f), KernelCategory::kMatmul);
  f.ops = {};
  EXPECT_EQ(classify_kernel(f), KernelCategory::kCube);
  f.name = "void at::native::vectorized_elementwise_kernel<cast_op>";
  EXPECT_EQ(classify_kernel(f), KernelCategory::kVectorTrans);
  f.name = "void at::native::reduce_kernel<512>";
  EXPECT_EQ(classify_kernel(f), KernelCategory::kVectorNoTrans);
  const std::string_view fa_bwd[] = {"FlashAttnFunc",
                                     "autograd::engine::evaluate_function: FlashAttnBackward"};
  const std::string_view fa[] = {"xformers_flash::flash_fwd"};
  f.name = "flash_fwd_kernel";
  f.ops = fa;
  EXPECT_EQ(classify_kernel(f), KernelCategory::kFlashAttentionFwdCube);
  f.name = "softmax_kernel";
  f.ops = fa_bwd;
  EXPECT_EQ(classify_kernel(f), KernelCategory::kFlashAttentionBwdVector);
  const std::string_view conv_bwd[] = {"aten::convolution_backward"};
  f.ops = conv_bwd;
  EXPECT_EQ(classify_kernel(f), KernelCategory::kConvBwd);
  f.npu = true;
  f.ops = {};
  f.name = "aclnnCast_CastAiCpu_Cast";
  f.task_type = "AI_CPU";
  EXPECT_EQ(classify_kernel(f), KernelCategory::kOther);
  f.task_type = "";
  f.name = "MatmulAllReduce_1";
  EXPECT_EQ(classify_kernel(f), KernelCategory::kMc2);
}

}  // namespace
}  // namespace cs::compare
