// gpu/gpu_rank: a rank's step breakdown and collectives, on a trace written here (figures worked
// out by hand) and on the two real ranks of ../shared/samples/kineto (figures computed from the
// JSON by an independent script: interval unions of the kernels launched in each ProfilerStep).

#include <gtest/gtest.h>

#include <string>

#include "gpu/gpu_rank.h"
#include "readers/kineto_trace.h"
#include "support/test_files.h"

namespace {

using cs::gpu::GpuRankSummary;

std::string kernel(const std::string& name, int ts, int dur, int corr, const std::string& args) {
  return R"({"ph":"X","cat":"kernel","name":")" + name + R"(","pid":0,"tid":7,"ts":)" +
         std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) + R"(,"args":{"correlation":)" +
         std::to_string(corr) + args + "}}";
}
std::string launch(int ts, int corr) {
  return R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":10,"tid":11,"ts":)" +
         std::to_string(ts) + R"(,"dur":2,"args":{"correlation":)" + std::to_string(corr) + "}}";
}

// One step [0, 1000) on the CPU; on the GPU compute [100,200) and [250,350), NCCL [300,500)
// with args, memcpy [500,520): computing 200, communication 200, overlapped 50, memory 20,
// window 100..520 = 420, free 420 - 370 = 50.
std::string one_step_trace() {
  std::string ev =
      R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#7","pid":10,"tid":11,"ts":0,"dur":1000},)";
  ev += launch(10, 1) + "," + launch(20, 2) + "," + launch(30, 3) + "," + launch(40, 4) + ",";
  ev += kernel("gemm", 100, 100, 1, "") + ",";
  ev += kernel("gemm", 250, 100, 2, "") + ",";
  ev += kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)", 300, 200, 3,
               R"(,"Collective name":"allreduce","In msg nelems":1000,"Out msg nelems":1000,)"
               R"("Group size":4,"dtype":"Float","Process Group Name":"2",)"
               R"("Process Group Ranks":"[0, 1, 2, 3]")") +
        ",";
  ev +=
      R"({"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH","pid":0,"tid":8,"ts":500,"dur":20,"args":{"correlation":4}})";
  return R"({"distributedInfo":{"backend":"nccl","rank":2,"world_size":4},"traceEvents":[)" + ev +
         "]}";
}

TEST(GpuRank, HandWorkedStep) {
  cs::readers::Trace t;
  cs::io::Diagnostics diag;
  ASSERT_TRUE(
      cs::readers::parse_kineto_trace(simdjson::padded_string(one_step_trace()), "t", t, diag))
      << cs::test::all_diags(diag);
  const GpuRankSummary s = cs::gpu::summarize_gpu_trace(t, t.distributed.rank);
  EXPECT_EQ(s.rank, 2);
  EXPECT_EQ(s.world_size, 4);
  ASSERT_EQ(s.steps.size(), 1u);
  const auto& st = s.steps[0];
  EXPECT_EQ(st.step, "7");
  EXPECT_EQ(st.window_ns, 420'000);
  EXPECT_EQ(st.computing_ns, 200'000);
  EXPECT_EQ(st.communication_ns, 200'000);
  EXPECT_EQ(st.overlapped_ns, 50'000);
  EXPECT_EQ(st.comm_not_overlapped_ns, 150'000);
  EXPECT_EQ(st.memory_ns, 20'000);
  EXPECT_EQ(st.free_ns, 50'000);
  EXPECT_EQ(st.kernel_sum_ns, 400'000);
  // The parts add up to the window.
  EXPECT_EQ(st.computing_ns + st.comm_not_overlapped_ns + st.memory_ns + st.free_ns, st.window_ns);
  ASSERT_EQ(s.collectives.size(), 1u);
  const auto& c = s.collectives[0];
  EXPECT_EQ(c.type, "allreduce");
  EXPECT_EQ(c.group, "2");
  EXPECT_EQ(c.group_ranks, "[0, 1, 2, 3]");
  EXPECT_EQ(c.bytes, 4000);
  EXPECT_EQ(c.group_size, 4);
  EXPECT_EQ(c.step, "7");
  EXPECT_FALSE(c.from_cpu_op);
  ASSERT_EQ(s.kernels.size(), 2u);
  EXPECT_EQ(s.kernels[0].name, "gemm");
  EXPECT_EQ(s.kernels[0].count, 2);
  EXPECT_TRUE(s.kernels[1].communication);
}

TEST(GpuRank, ArgsFromRecordParamComms) {
  // An NCCL kernel without args: its launch lies inside a record_param_comms CPU op that has them.
  std::string ev =
      R"({"ph":"X","cat":"cpu_op","name":"record_param_comms","pid":10,"tid":11,"ts":5,"dur":30,)"
      R"("args":{"Collective name":"_allgather_base","In msg nelems":10,"Out msg nelems":40,)"
      R"("Group size":4,"dtype":"BFloat16","Process Group Name":"7"}},)";
  ev += launch(10, 1) + ",";
  ev += kernel("ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*)", 100, 50, 1, "");
  const std::string json = R"({"traceEvents":[)" + ev + "]}";
  cs::readers::Trace t;
  cs::io::Diagnostics diag;
  ASSERT_TRUE(cs::readers::parse_kineto_trace(simdjson::padded_string(json), "t", t, diag));
  const GpuRankSummary s = cs::gpu::summarize_gpu_trace(t, 0);
  ASSERT_EQ(s.collectives.size(), 1u);
  EXPECT_TRUE(s.collectives[0].from_cpu_op);
  EXPECT_EQ(s.collectives[0].type, "allgather");
  EXPECT_EQ(s.collectives[0].group, "7");
  EXPECT_EQ(s.collectives[0].bytes, 80);  // allgather: the output, 40 x 2 bytes
  ASSERT_EQ(s.steps.size(), 1u);
  EXPECT_EQ(s.steps[0].step, "all");  // no ProfilerStep: the whole trace
}

TEST(GpuRank, Names) {
  EXPECT_EQ(cs::gpu::collective_type("", "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(x)"),
            "sendrecv");
  EXPECT_EQ(cs::gpu::collective_type("", "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(x)"),
            "reducescatter");
  EXPECT_EQ(cs::gpu::collective_type("all_reduce", "x"), "allreduce");
  EXPECT_EQ(cs::gpu::collective_type("_reduce_scatter_base", "x"), "reducescatter");
  EXPECT_EQ(cs::gpu::collective_type("broadcast", "x"), "broadcast");
  EXPECT_TRUE(cs::gpu::is_collective_kernel("ncclKernel_AllReduce_RING_LL_Sum_float"));
  EXPECT_TRUE(cs::gpu::is_collective_kernel("rcclGenericKernel"));
  EXPECT_FALSE(cs::gpu::is_collective_kernel("volta_sgemm_128x64_nn"));
  EXPECT_EQ(cs::gpu::dtype_bytes("Float"), 4);
  EXPECT_EQ(cs::gpu::dtype_bytes("BFloat16"), 2);
  EXPECT_EQ(cs::gpu::dtype_bytes("Long"), 8);
  EXPECT_EQ(cs::gpu::dtype_bytes("Byte"), 1);
  EXPECT_EQ(cs::gpu::dtype_bytes("weird"), 0);
}

struct StepRef {
  int rank;
  const char* step;
  int64_t window, comp, comm, ov, cno, mem, free, ksum;
};

// Computed from the JSON by a separate Python script (json + gzip, its own interval union; the
// kernels, memcpys and memsets launched in each ProfilerStep#N), not by this code.
const StepRef kRefs[] = {
    {0, "551", 600058000, 106252000, 195327000, 23068000, 172259000, 169000, 321378000, 301579000},
    {0, "552", 615601000, 104068000, 200872000, 36148000, 164724000, 184000, 346625000, 304940000},
    {1, "551", 600674000, 135548000, 168027000, 33691000, 134336000, 2119000, 328671000, 303575000},
    {1, "552", 623286000, 136425000, 211026000, 41839000, 169187000, 2435000, 315239000, 347451000},
};

TEST(GpuRank, SharedSamplesMatchIndependentFigures) {
  for (int r : {0, 1}) {
    const std::string path =
        std::string(CS_TEST_DATA) + "/kineto/sampled_rank-" + std::to_string(r) + ".json.gz";
    cs::readers::Trace t;
    cs::io::Diagnostics diag;
    ASSERT_TRUE(cs::readers::read_kineto_trace(path, t, diag)) << cs::test::all_diags(diag);
    const GpuRankSummary s = cs::gpu::summarize_gpu_trace(t, t.distributed.rank);
    EXPECT_EQ(s.rank, r);
    EXPECT_EQ(s.world_size, 128);
    ASSERT_EQ(s.steps.size(), 2u);
    EXPECT_EQ(s.collectives.size(), 10u);
    for (const auto& ref : kRefs) {
      if (ref.rank != r) continue;
      const auto& st = s.steps[std::string(ref.step) == "551" ? 0 : 1];
      SCOPED_TRACE(std::to_string(r) + " " + ref.step);
      EXPECT_EQ(st.step, ref.step);
      EXPECT_EQ(st.window_ns, ref.window);
      EXPECT_EQ(st.computing_ns, ref.comp);
      EXPECT_EQ(st.communication_ns, ref.comm);
      EXPECT_EQ(st.overlapped_ns, ref.ov);
      EXPECT_EQ(st.comm_not_overlapped_ns, ref.cno);
      EXPECT_EQ(st.memory_ns, ref.mem);
      EXPECT_EQ(st.free_ns, ref.free);
      EXPECT_EQ(st.kernel_sum_ns, ref.ksum);
    }
    for (const auto& c : s.collectives) {
      EXPECT_EQ(c.type, "sendrecv");
      EXPECT_EQ(c.group, "p2p@" + std::to_string(r));  // no process group: the peer is unknown
      EXPECT_EQ(c.bytes, -1);                          // the 2023 trace has no collective args
    }
  }
}

}  // namespace
