// The DualPipeV schedule (pipeline/dualpipev.h) against msprof-analyze 8399c1cd's own: the block
// names and phases of pp 2, 4 micro-batches, and the expected count per stage for other sizes, as
// its PPChart.calculate_micro_batch_id_for_dualpipev computed them (printed from
// micro_batch_id_dict and pp_stage_mstx_num); fewer than 2 * pp micro-batches give nothing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pipeline/dualpipev.h"

namespace {

using cs::pipeline::dualpipev_schedule;

std::string blocks_text(const std::vector<cs::pipeline::ScheduleBlock>& blocks) {
  std::string s;
  for (const auto& b : blocks) s += (s.empty() ? "" : " ") + b.name + ":" + std::to_string(b.phase);
  return s;
}

TEST(DualPipeV, BlocksOfTwoStagesAndFourMicrobatches) {
  const auto s = dualpipev_schedule(2, 4);
  ASSERT_EQ(s.blocks.size(), 2u);
  EXPECT_EQ(blocks_text(s.blocks[0]),
            "0:0 1:0 2:1 4:1 logits:2 4b:2 4w:2 5:2 logits:3 3F+5B:3 6F+0B:3 logits:4 6B:4 "
            "7F+1B:4 logits:5 7B:5 2B:6 3B:6");
  EXPECT_EQ(blocks_text(s.blocks[1]),
            "0:1 4:1 1:1 5:1 2F:3 4B:3 6F+0B:3 3F+5B:3 7F+1B:3 6B:5 2B:5 7B:6 3B:6");
  EXPECT_EQ(s.expected, (std::vector<int64_t>{18, 13}));
}

TEST(DualPipeV, ExpectedCountsMatchMsprofAnalyze) {
  struct Case {
    int pp;
    int64_t microbatches;
    std::vector<int64_t> expected;
  };
  for (const Case& c : {Case{1, 2, {9}}, Case{2, 9, {33, 23}}, Case{3, 6, {28, 20, 19}},
                        Case{4, 8, {38, 28, 26, 25}}, Case{4, 9, {41, 30, 28, 27}}}) {
    const auto s = dualpipev_schedule(c.pp, c.microbatches);
    EXPECT_EQ(s.expected, c.expected) << "pp " << c.pp << ", microbatches " << c.microbatches;
    for (size_t i = 0; i < s.blocks.size(); ++i)  // every stage's blocks fill what it expects
      EXPECT_EQ(static_cast<int64_t>(s.blocks[i].size()), s.expected[i]) << "stage " << i;
  }
}

TEST(DualPipeV, TooFewMicrobatchesGiveNothing) {
  const auto s = dualpipev_schedule(4, 7);
  ASSERT_EQ(s.blocks.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_TRUE(s.blocks[i].empty());
    EXPECT_EQ(s.expected[i], 0);
  }
  EXPECT_TRUE(dualpipev_schedule(0, 8).blocks.empty());
}

TEST(DualPipeV, BlockMessages) {
  using cs::pipeline::block_message;
  EXPECT_STREQ(block_message({"3F+5B", 3}), "forward_backward_step");
  EXPECT_STREQ(block_message({"4b", 2}), "backward_step");
  EXPECT_STREQ(block_message({"4w", 2}), "backward_step");
  EXPECT_STREQ(block_message({"7B", 6}), "backward_step");
  EXPECT_STREQ(block_message({"2F", 3}), "forward_step");
  EXPECT_STREQ(block_message({"logits", 2}), "forward_step");
  EXPECT_STREQ(block_message({"5", 1}), "forward_step");
}

}  // namespace
