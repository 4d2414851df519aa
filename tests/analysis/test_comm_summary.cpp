// comm_rank_summary / comm_transport_summary as `cluster` builds them (streamed rank by rank:
// analysis/comm_summary_stream.h), worked out by hand; and the diagnosis summary text.

#include "analysis/comm_summary.h"

#include <gtest/gtest.h>

#include "analysis/comm_summary_reference.h"
#include "analysis/diagnosis_summary.h"
#include "analysis/synthetic_cluster.h"

namespace cs::analysis {
namespace {

using testing::stream_comm_summaries;

std::vector<load::RankData> two_ranks() {
  std::vector<load::RankData> ranks(2);
  for (int r = 0; r < 2; ++r) {
    ranks[static_cast<size_t>(r)].entry.rank = r;
    ranks[static_cast<size_t>(r)].has_communication = true;
    readers::CommStep s;
    s.step = "step1";
    s.collective.push_back(testing::make_op("hcom_allReduce__1_0_1@77", 2.0, 0.5, 1.0, 0.5));
    s.collective.push_back(testing::make_op("hcom_allReduce__1_1_1@77", 1.0, 0.5, 0.5, 0.0));
    s.collective.push_back(testing::make_op("Total Op Info", 3.0, 1.0, 1.5, 0.5));  // skipped
    ranks[static_cast<size_t>(r)].communication.edit().steps.push_back(s);
  }
  return ranks;
}

TEST(CommSummary, RankSummarySumsOpsAndRecomputesRatios) {
  auto t = stream_comm_summaries(two_ranks()).ranks;
  t.validate();
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.find("group")->strings[0], "77");
  EXPECT_EQ(t.find("rank")->ints[1], 1);
  EXPECT_EQ(t.find("ops")->ints[0], 2);
  EXPECT_DOUBLE_EQ(t.find("elapse_ms")->doubles[0], 3.0);
  EXPECT_DOUBLE_EQ(t.find("transit_ms")->doubles[0], 1.0);
  EXPECT_DOUBLE_EQ(t.find("wait_ms")->doubles[0], 1.5);
  EXPECT_DOUBLE_EQ(t.find("idle_ms")->doubles[0], 0.5);
  EXPECT_DOUBLE_EQ(t.find("wait_ratio")->doubles[0], 1.5 / 2.5);
  EXPECT_DOUBLE_EQ(t.find("sync_ratio")->doubles[0], 0.5 / 1.5);
}

// A rank the root still holds packed is analysed like an unpacked one: the analyses reach the
// ops only through RankCommunication::read, which unpacks them for the reader.
TEST(CommSummary, PackedRanksOpsAreSeen) {
  auto packed = two_ranks();
  for (auto& r : packed) r.communication.pack();
  ASSERT_TRUE(packed[0].communication.packed());
  auto t = stream_comm_summaries(packed).ranks;
  t.validate();
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.find("ops")->ints[0], 2);
  EXPECT_DOUBLE_EQ(t.find("elapse_ms")->doubles[0], 3.0);
  EXPECT_EQ(stream_comm_summaries(packed).transports.rows(),
            stream_comm_summaries(two_ranks()).transports.rows());
  EXPECT_TRUE(packed[0].communication.packed());  // the analysis left the memory policy alone
}

TEST(CommSummary, TransportSummaryBandwidthAndUtilization) {
  auto t = stream_comm_summaries(two_ranks()).transports;
  t.validate();
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.find("transport")->strings[0], "HCCS");
  EXPECT_DOUBLE_EQ(t.find("size_mb")->doubles[0], 16.0);
  EXPECT_DOUBLE_EQ(t.find("time_ms")->doubles[0], 1.0);
  EXPECT_DOUBLE_EQ(t.find("bandwidth_gbps")->doubles[0], 16.0);
  EXPECT_DOUBLE_EQ(t.find("nominal_gbps")->doubles[0], 18.0);
  EXPECT_DOUBLE_EQ(t.find("utilization")->doubles[0], 16.0 / 18.0);
  EXPECT_EQ(stream_comm_summaries({}).transports.rows(), 0u);
}

TEST(DiagnosisSummary, Text) {
  EXPECT_EQ(analysis::diagnosis_summary({}, {}, {}), "No slow rank found.\nNo slow link found.\n");
  testing::SyntheticOptions o;
  o.slow[6] = 2.0;
  auto ranks = analysis::find_slow_ranks(testing::synthetic_cluster(o));
  analysis::SlowLinkFinding l;
  l.evidence = "HCCS link 1->2 moves 5 GB/s";
  stats::TopNRow row;
  row.key = "MatMulV3";
  row.cross_rank_cv = 0.4;
  row.ranks = 16;
  row.max_rank = 6;
  row.min_rank = 0;
  auto s = analysis::diagnosis_summary(ranks, {l}, {row});
  EXPECT_NE(s.find("Rank 6 is slow (compute): its peers wait for it"), std::string::npos) << s;
  EXPECT_NE(s.find("Slow link: HCCS link 1->2"), std::string::npos) << s;
  EXPECT_NE(s.find("Operator MatMulV3 varies most across ranks: CV 0.40"), std::string::npos) << s;
  row.cross_rank_cv = 0.01;  // not notable
  EXPECT_EQ(analysis::diagnosis_summary({}, {}, {row}).find("Operator"), std::string::npos);
}

}  // namespace
}  // namespace cs::analysis
