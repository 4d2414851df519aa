// gpu/gpu_collectives, gpu_diagnosis, gpu_tables, gpu_codec: collectives matched across ranks,
// waits, NCCL bandwidths and the diagnosis on summaries built here (figures worked out by hand).

#include <gtest/gtest.h>

#include "gpu/gpu_codec.h"
#include "gpu/gpu_collectives.h"
#include "gpu/gpu_diagnosis.h"
#include "gpu/gpu_tables.h"
#include "io/csv/csv_writer.h"

namespace {

using cs::gpu::GpuCollective;
using cs::gpu::GpuRankSummary;

GpuCollective coll(const std::string& group, int64_t seq, int64_t start, int64_t dur, int64_t bytes,
                   int64_t gsize, const std::string& type = "allreduce") {
  GpuCollective c;
  c.type = type;
  c.group = group;
  c.seq = seq;
  c.start_ns = start;
  c.dur_ns = dur;
  c.bytes = bytes;
  c.group_size = gsize;
  c.step = "1";
  return c;
}

GpuRankSummary rank(int r, int64_t computing) {
  GpuRankSummary s;
  s.rank = r;
  cs::gpu::GpuStep st;
  st.step = "1";
  st.window_ns = 1'000'000;
  st.computing_ns = computing;
  s.steps.push_back(st);
  return s;
}

TEST(GpuCollectives, BusBandwidthFactors) {
  EXPECT_DOUBLE_EQ(cs::gpu::busbw_factor("allreduce", 8), 1.75);
  EXPECT_DOUBLE_EQ(cs::gpu::busbw_factor("allgather", 4), 0.75);
  EXPECT_DOUBLE_EQ(cs::gpu::busbw_factor("reducescatter", 2), 0.5);
  EXPECT_DOUBLE_EQ(cs::gpu::busbw_factor("broadcast", 8), 1.0);
  EXPECT_DOUBLE_EQ(cs::gpu::busbw_factor("sendrecv", 2), 1.0);
}

TEST(GpuCollectives, WaitTransitAndBandwidth) {
  // Two ranks, one allreduce of 1 MB (group of 2): rank 0 starts at 0 and runs 300 us, rank 1
  // starts at 200 us and runs 100 us. Latency 100 us -> algbw 1e6 B / 1e5 ns = 10 GB/s,
  // busbw 10 x 2(2-1)/2 = 10 GB/s. Rank 0 waits 200 us, transit 100 us; rank 1 waits 0.
  std::vector<GpuRankSummary> ranks = {rank(0, 500'000), rank(1, 500'000)};
  ranks[0].collectives.push_back(coll("g", 0, 0, 300'000, 1'000'000, 2));
  ranks[1].collectives.push_back(coll("g", 0, 200'000, 100'000, 1'000'000, 2));
  const auto inst = cs::gpu::match_collectives(ranks);
  ASSERT_EQ(inst.size(), 1u);
  EXPECT_EQ(inst[0].ranks, 2);
  EXPECT_EQ(inst[0].latency_ns, 100'000);
  EXPECT_EQ(inst[0].start_skew_ns, 200'000);
  EXPECT_EQ(inst[0].last_rank, 1);
  EXPECT_EQ(inst[0].blame_ns, 200'000);
  EXPECT_DOUBLE_EQ(inst[0].algbw_gbps, 10.0);
  EXPECT_DOUBLE_EQ(inst[0].busbw_gbps, 10.0);
  const auto w = cs::gpu::rank_waits(ranks, inst);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].wait_ns, 200'000);
  EXPECT_EQ(w[0].transit_ns, 100'000);
  EXPECT_EQ(w[1].wait_ns, 0);
  EXPECT_EQ(w[1].transit_ns, 100'000);
  EXPECT_EQ(w[1].last_arrivals, 1);
  const std::string csv = cs::io::table_to_csv(cs::gpu::collectives_table(inst));
  EXPECT_EQ(csv,
            "group,seq,type,step,ranks,group_size,bytes,latency_us,max_duration_us,"
            "start_skew_us,end_skew_us,last_rank,algbw_gbps,busbw_gbps\n"
            "g,0,allreduce,1,2,2,1000000,100,300,200,0,1,10,10\n");
}

TEST(GpuCollectives, SlowRankFoundWithCause) {
  // Four ranks, 10 allreduces; rank 3 computes 20% more and arrives 50 us late at each.
  std::vector<GpuRankSummary> ranks;
  for (int r = 0; r < 4; ++r) ranks.push_back(rank(r, r == 3 ? 600'000 : 500'000));
  for (int i = 0; i < 10; ++i)
    for (int r = 0; r < 4; ++r) {
      const int64_t start = i * 100'000 + (r == 3 ? 50'000 : r * 1'000);
      ranks[r].collectives.push_back(coll("g", i, start, 20'000, 1 << 20, 4));
    }
  const auto inst = cs::gpu::match_collectives(ranks);
  const auto slow = cs::gpu::find_slow_ranks(ranks, cs::gpu::rank_waits(ranks, inst), inst);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].rank, 3);
  EXPECT_EQ(slow[0].cause, "compute");
  EXPECT_DOUBLE_EQ(slow[0].last_fraction, 1.0);
  EXPECT_EQ(slow[0].blame_ns, 10 * 48'000);
}

TEST(GpuCollectives, CleanJobIsSilent) {
  // Arrival order rotates: nobody is last most of the time, no group is slower.
  std::vector<GpuRankSummary> ranks;
  for (int r = 0; r < 4; ++r) ranks.push_back(rank(r, 500'000));
  for (int i = 0; i < 12; ++i)
    for (int r = 0; r < 4; ++r)
      ranks[r].collectives.push_back(
          coll(std::to_string(r % 2), i, i * 100'000 + ((r + i) % 4) * 1'000, 20'000, 1 << 20, 2));
  const auto inst = cs::gpu::match_collectives(ranks);
  EXPECT_TRUE(cs::gpu::find_slow_ranks(ranks, cs::gpu::rank_waits(ranks, inst), inst).empty());
  EXPECT_TRUE(cs::gpu::find_slow_groups(inst).empty());
}

TEST(GpuCollectives, SlowPairNamesTheLink) {
  // Four pairs exchange 1 MB; the pair (2, 3) takes 3x as long: group "p1" and link 2-3.
  std::vector<GpuRankSummary> ranks;
  for (int r = 0; r < 8; ++r) ranks.push_back(rank(r, 500'000));
  for (int i = 0; i < 5; ++i)
    for (int r = 0; r < 8; ++r) {
      const int pair = r / 2;
      auto c = coll("p" + std::to_string(pair), i, i * 100'000, pair == 1 ? 30'000 : 10'000,
                    1 << 20, 2, "sendrecv");
      c.group_ranks = "[" + std::to_string(pair * 2) + ", " + std::to_string(pair * 2 + 1) + "]";
      ranks[r].collectives.push_back(c);
    }
  const auto slow = cs::gpu::find_slow_groups(cs::gpu::match_collectives(ranks));
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].group, "p1");
  EXPECT_EQ(slow[0].link, "2-3");
  EXPECT_NEAR(slow[0].ratio, 3.0, 1e-9);
}

TEST(GpuCollectives, QuantilesAsNumpy) {
  EXPECT_DOUBLE_EQ(cs::gpu::quantile_sorted({1, 2, 3, 4}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(cs::gpu::quantile_sorted({1, 2, 3, 4}, 0.9), 3.7);  // numpy.quantile
  EXPECT_DOUBLE_EQ(cs::gpu::quantile_sorted({5}, 0.99), 5);
}

TEST(GpuCodec, RoundTrip) {
  GpuRankSummary s = rank(5, 123);
  s.path = "a/rank-5.json.gz";
  s.trace_rank = 5;
  s.parsed = true;
  s.messages = {"x: warn"};
  s.collectives.push_back(coll("g", 3, 1, 2, 3, 4));
  s.kernels.push_back({"k", 2, 30, true});
  std::vector<char> buf;
  cs::gpu::encode_summary(s, buf);
  cs::gpu::encode_summary(s, buf);
  std::vector<GpuRankSummary> back;
  cs::gpu::decode_summaries(buf, back);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].path, s.path);
  EXPECT_EQ(back[1].messages, s.messages);
  EXPECT_EQ(back[1].steps[0].computing_ns, 123);
  EXPECT_EQ(back[1].collectives[0].seq, 3);
  EXPECT_EQ(back[1].kernels[0].total_ns, 30);
  buf.resize(buf.size() - 3);
  std::vector<GpuRankSummary> cut;
  EXPECT_THROW(cs::gpu::decode_summaries(buf, cut), std::runtime_error);
}

}  // namespace
