// Collective latency, skew and bandwidths against TraceLens' NCCL analyser (AMD-AGI/TraceLens,
// NcclAnalyser.build_df_nccl_implicit_sync_cat, run on Debian's python3 with pandas 1.5.3; its
// code is not part of this repository) on tests/data/gpu/tp2_ranks01: ranks 0 and 1 (one tensor
// parallel group) of `clusterscope generate --framework kineto --ranks 8 --tp 2 --pp 2 --steps 2
// --seed 7`. TraceLens' rows for that group (4 of its 66):
//   seq  Collective name       Group size  Full msg size (MB)  comm_latency  skew in start time
//   0    _allgather_base       2           16.7772159576416    1066.037      192.5
//   1    _reduce_scatter_base  2           16.7772159576416    1054.512      78.5
//   40   _reduce_scatter_base  2           16.7772159576416    1047.316      53.5
//   63   _allgather_base       2           16.7772159576416    1040.534      12.75
//   algo bw (GB/s) 15.369072516839823, 15.537044584257345, 15.643798011903169, 15.745761271264923
//   bus bw (GB/s)  7.684536258419913, 7.768522292128671, 7.821899005951583, 7.872880635632462
// Units: TraceLens' "MB" is MiB and its GB/s GiB/s (MiB / 1024 / s); clusterscope's GB/s are
// 1e9 bytes/s as nccl-tests', so ours = TraceLens' x 2^30 / 1e9 (to 1e-9 relative: both are
// doubles from the same integers). TraceLens reads ts as float microseconds, which at today's
// epoch (1.7e15 us) resolve 0.25 us; ours are exact nanoseconds: the skew agrees within 0.25 us.

#include <gtest/gtest.h>

#include <string>

#include "gpu/gpu_collectives.h"
#include "gpu/gpu_discovery.h"
#include "gpu/gpu_run.h"

namespace {

struct TlRow {
  int64_t seq;
  const char* type;
  double latency_us, skew_us, algbw_gib, busbw_gib;
};

const TlRow kTraceLens[] = {
    {0, "allgather", 1066.037, 192.5, 15.369072516839823, 7.684536258419913},
    {1, "reducescatter", 1054.512, 78.5, 15.537044584257345, 7.768522292128671},
    {40, "reducescatter", 1047.316, 53.5, 15.643798011903169, 7.821899005951583},
    {63, "allgather", 1040.534, 12.75, 15.745761271264923, 7.872880635632462},
};

TEST(GpuTraceLensReference, CollectiveBandwidths) {
  const auto d = cs::gpu::discover_gpu_traces(std::string(CS_TEST_DATA) + "/gpu/tp2_ranks01");
  ASSERT_FALSE(d.fatal);
  std::vector<cs::gpu::GpuRankSummary> all;
  for (const auto& f : d.traces) all.push_back(cs::gpu::summarize_trace_file(f));
  std::vector<std::string> notes;
  const auto ranks = cs::gpu::resolve_ranks(std::move(all), std::nullopt, notes);
  ASSERT_EQ(ranks.size(), 2u);
  const auto inst = cs::gpu::match_collectives(ranks);
  const std::string group = "10.170.22.1%enp67s0f5_60000_4_1708156014264697";
  int tp_instances = 0;
  for (const auto& in : inst) tp_instances += in.group == group;
  EXPECT_EQ(tp_instances, 66);  // as TraceLens
  const double gib = 1073741824.0 / 1e9;
  for (const TlRow& r : kTraceLens) {
    SCOPED_TRACE(r.seq);
    const cs::gpu::CollectiveInstance* found = nullptr;
    for (const auto& in : inst)
      if (in.group == group && in.seq == r.seq) found = &in;
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->type, r.type);
    EXPECT_EQ(found->ranks, 2);
    EXPECT_EQ(found->bytes, 17592186);  // 16.7772159576416 MiB
    EXPECT_NEAR(found->latency_ns / 1e3, r.latency_us, 1e-9);
    EXPECT_NEAR(found->start_skew_ns / 1e3, r.skew_us, 0.25);
    EXPECT_NEAR(found->algbw_gbps / (r.algbw_gib * gib), 1.0, 1e-9);
    EXPECT_NEAR(found->busbw_gbps / (r.busbw_gib * gib), 1.0, 1e-9);
  }
}

}  // namespace
