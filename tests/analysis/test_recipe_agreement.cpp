// analysis/recipe_agreement: msprof-analyze's recipe verdicts set beside clusterscope's findings,
// row by row, with the agreement worked out by hand.
#include "analysis/recipe_agreement.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using cs::analysis::RecipeVerdicts;
using cs::analysis::SlowLinkFinding;
using cs::analysis::SlowRankFinding;

SlowRankFinding slow(int rank, const char* cause) {
  SlowRankFinding f;
  f.rank = rank;
  f.cause = cause;
  f.impact_ms_per_step = 2.5;
  f.collective_evidence = true;
  return f;
}

SlowLinkFinding link(int src, int dst) {
  SlowLinkFinding l;
  l.src_rank = src;
  l.dst_rank = dst;
  l.transport = "HCCS";
  l.bandwidth_gbps = 5;
  l.expected_gbps = 18;
  return l;
}

// The table's row whose recipe and subject are these, as "theirs|ours|agree"; "" when absent.
std::string row(const cs::io::Table& t, const std::string& recipe, const std::string& subject) {
  for (size_t r = 0; r < t.rows(); ++r)
    if (t.find("recipe")->str(r) == recipe && t.find("subject")->str(r) == subject)
      return std::string(t.find("msprof_analyze")->str(r)) + "|" +
             std::string(t.find("clusterscope")->str(r)) + "|" +
             std::string(t.find("agree")->str(r));
  return "";
}

TEST(RecipeAgreement, NothingWhenTheRecipesDidNotRun) {
  RecipeVerdicts v;  // ran = false
  v.slow_rank_votes = {{1, 3}};
  EXPECT_EQ(cs::analysis::recipe_agreement_table(v, {slow(1, "compute")}, {}).rows(), 0u);
  EXPECT_EQ(cs::analysis::recipe_agreement_summary(v, {slow(1, "compute")}, {}), "");
}

TEST(RecipeAgreement, RowsPerRankAndLinkEitherSideNames) {
  RecipeVerdicts v;
  v.ran = true;
  v.slow_rank_votes = {{7, 2}, {5, 24}, {9, 2}};  // first-vote order, as SlowRank writes them
  v.freq_ran = true;
  v.idle_frequency = {{5, "[800, 1800]"}};
  v.abnormal_frequency = {{3, "[1200, 1800]"}};
  v.slow_links = {{"hcom_allGather_4_1024", 3.1, 4, 2}, {"hcom_broadcast_8_64", 4.0, 11, 1}};
  const std::vector<SlowRankFinding> ranks = {slow(5, "compute"), slow(12, "host")};
  const std::vector<SlowLinkFinding> links = {link(4, 6), link(20, 21)};
  const cs::io::Table t = cs::analysis::recipe_agreement_table(v, ranks, links, 2);
  t.validate();
  // Most votes first, at most 2 voted ranks; then clusterscope's slow rank the votes leave out.
  EXPECT_EQ(t.find("subject")->str(0), "rank 5");
  EXPECT_EQ(row(t, "slow_rank", "rank 5"),
            "24 vote(s)|slow (compute), costs its peers 2.50 ms per step|yes");
  EXPECT_EQ(row(t, "slow_rank", "rank 7"), "2 vote(s)|not slow|no");
  EXPECT_EQ(row(t, "slow_rank", "rank 9"), "");  // beyond the top 2
  EXPECT_EQ(row(t, "slow_rank", "rank 12"),
            "no vote in its top 2|slow (host), costs its peers 2.50 ms per step|no");
  // A lower clock agrees only with a rank slow from its computing.
  EXPECT_EQ(row(t, "freq_analysis", "rank 5"),
            "clock dropped: AI Core MHz [800, 1800]|slow (compute), costs its peers 2.50 ms per "
            "step|yes");
  EXPECT_EQ(row(t, "freq_analysis", "rank 3"),
            "abnormal clock: AI Core MHz [1200, 1800]|not slow|no");
  // A group agrees when clusterscope has a slow link at its slowest rank.
  EXPECT_EQ(row(t, "slow_link", "hcom_allGather_4_1024"),
            "transmit-time outlier, offset ratio 3.10, slowest rank 4|slow link 4->6 (HCCS)|yes");
  EXPECT_EQ(row(t, "slow_link", "hcom_broadcast_8_64"),
            "transmit-time outlier, offset ratio 4.00, slowest rank 11|no slow link at rank 11|no");
  EXPECT_EQ(row(t, "slow_link", "link 20->21 (HCCS)"),
            "no op class with an outlier at its ranks|slow link: 5.0 GB/s against 18.0 "
            "expected|no");
  EXPECT_EQ(t.rows(), 8u);
  // Every disagreement says why; an agreement needs no excuse but gets a reason too.
  for (size_t r = 0; r < t.rows(); ++r) EXPECT_FALSE(t.find("why")->str(r).empty()) << r;

  EXPECT_EQ(cs::analysis::recipe_agreement_summary(v, ranks, links),
            "msprof-analyze slow_rank: most votes for rank 5 (24); clusterscope also finds it "
            "slow.\n"
            "msprof-analyze freq_analysis: 2 rank(s) with a dropped or abnormal AI Core clock; 1 "
            "of them slow from computing here.\n"
            "msprof-analyze slow_link: 2 op class(es) with a transmit-time outlier, 1 at a link "
            "clusterscope finds slow (2 slow link(s)). Details: recipe_agreement.csv.\n");
}

TEST(RecipeAgreement, NoVotesAndNoFrequencyData) {
  RecipeVerdicts v;
  v.ran = true;
  const std::string s = cs::analysis::recipe_agreement_summary(v, {slow(2, "compute")}, {});
  EXPECT_EQ(s,
            "msprof-analyze slow_rank: no vote; clusterscope finds 1 slow rank(s).\n"
            "msprof-analyze slow_link: 0 op class(es) with a transmit-time outlier, 0 at a link "
            "clusterscope finds slow (0 slow link(s)). Details: recipe_agreement.csv.\n");
  const cs::io::Table t = cs::analysis::recipe_agreement_table(v, {slow(2, "compute")}, {});
  ASSERT_EQ(t.rows(), 1u);
  EXPECT_EQ(row(t, "slow_rank", "rank 2"),
            "no vote|slow (compute), costs its peers 2.50 ms per "
            "step|no");
}

}  // namespace
