// msprof_analyze/documents/step_trace_overlap: the whole-run step trace msprof-analyze computes for
// MindSpore and msprof DB exports, on tiny hand-made intervals. The expected values are what
// msprof-analyze 8399c1cd's RangeCaculator gives on the same intervals (checked by running it).
#include "msprof_analyze/documents/step_trace_overlap.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

using cs::documents::merge_continuous;
using cs::documents::NsInterval;
using cs::documents::pipeline_overlap;
using cs::documents::StepTraceTotals;
using cs::documents::totals_in_us;
using cs::documents::whole_run_totals;

NsInterval recv(int64_t s, int64_t e) {
  return {s, e, true};
}

TEST(StepTraceOverlap, MergeJoinsOverlappingAndAdjacentIntervals) {
  std::vector<NsInterval> r{{9, 10}, {5, 7}, {0, 5}, {1, 2}};
  const auto m = merge_continuous(r);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].start, 0);
  EXPECT_EQ(m[0].end, 7);  // [0,5] touches [5,7]: one interval
  EXPECT_EQ(m[1].start, 9);
  EXPECT_EQ(m[1].end, 10);
  // In place: sorted, and the group's head extended to the group's end.
  EXPECT_EQ(r[0].start, 0);
  EXPECT_EQ(r[0].end, 7);
  EXPECT_EQ(r[1].end, 2);  // [1,2] inside the group keeps its end
}

TEST(StepTraceOverlap, MergeOfEqualStartsKeepsTheFirstAsHead) {
  std::vector<NsInterval> r{{0, 3}, recv(0, 8)};
  merge_continuous(r);
  EXPECT_FALSE(r[0].receive);
  EXPECT_EQ(r[0].end, 8);
  EXPECT_EQ(r[1].end, 8);
}

TEST(StepTraceOverlap, PipelineOverlapCountsUncoveredCommunicationAndGaps) {
  int64_t pure = -1, free = -1;
  pipeline_overlap({{0, 10}}, {{4, 6}}, &pure, &free);  // compute inside communication
  EXPECT_EQ(pure, 8);
  EXPECT_EQ(free, 0);
  pipeline_overlap({{6, 10}}, {{0, 4}}, &pure, &free);  // a gap of 2
  EXPECT_EQ(pure, 4);
  EXPECT_EQ(free, 2);
  pipeline_overlap({{0, 3}}, {{0, 10}}, &pure, &free);  // equal starts: communication first
  EXPECT_EQ(pure, 0);
  EXPECT_EQ(free, 0);
  pipeline_overlap({}, {}, &pure, &free);
  EXPECT_EQ(pure, 0);
  EXPECT_EQ(free, 0);
}

TEST(StepTraceOverlap, ReceiveHeadingAMergedGroupCountsToTheGroupsEnd) {
  // Compute [0,4]+[3,6] -> [0,6]; communication receive [5,9] + [8,12] -> [5,12], and the
  // receive, heading the group, now ends at 12: bubble 7, not 4.
  const StepTraceTotals t = whole_run_totals({{0, 4}, {3, 6}}, {recv(5, 9), {8, 12}});
  EXPECT_EQ(t.computing, 6);
  EXPECT_EQ(t.communication, 7);
  EXPECT_EQ(t.communication_not_overlapped, 6);
  EXPECT_EQ(t.free, 0);
  EXPECT_EQ(t.bubble, 7);
  EXPECT_EQ(t.communication_not_overlapped_exclude_receive, -1);
  EXPECT_EQ(t.overlapped, 1);
  EXPECT_EQ(t.stage, 5);  // free + computing + not overlapped - bubble
}

TEST(StepTraceOverlap, OverlappingReceivesSumBeyond64BitsSaturate) {
  // Two receive ops of 2^62 - 2 ns each, overlapping: their sum (the bubble) is beyond int64 and
  // saturates; nothing overflows (UBSan checks this in the sanitizer build).
  constexpr int64_t kFar = (int64_t{1} << 62) - 1;
  const StepTraceTotals t = whole_run_totals({}, {recv(-kFar, kFar), recv(-kFar + 1, kFar - 1)});
  EXPECT_EQ(t.communication, 2 * kFar);
  EXPECT_EQ(t.bubble, INT64_MAX);
  EXPECT_EQ(t.communication_not_overlapped, 2 * kFar);
  // These are computed from the exact sum (4 kFar - 2), which they can hold: -2 kFar + 2.
  EXPECT_EQ(t.communication_not_overlapped_exclude_receive, -2 * kFar + 2);
  EXPECT_EQ(t.stage, -2 * kFar + 2);
}

TEST(StepTraceOverlap, ReceiveInsideAGroupKeepsItsOwnDuration) {
  // The receive [8,12] is not the head of [5,9]+[8,12]: it counts its own 4.
  const StepTraceTotals t = whole_run_totals({{0, 10}}, {{5, 9}, recv(8, 12)});
  EXPECT_EQ(t.communication, 7);
  EXPECT_EQ(t.bubble, 4);
  EXPECT_EQ(t.communication_not_overlapped, 2);
}

TEST(StepTraceOverlap, ZeroLengthReceiveTiedAtTheStartTakesTheGroup) {
  // Stable sort keeps the database's order among equal starts: the receive [2,2] comes first,
  // heads [2,2]+[2,5] and counts 3; [20,25] counts 5. Free is the gap 10..20.
  const StepTraceTotals t = whole_run_totals({{0, 10}, {3, 3}}, {recv(2, 2), {2, 5}, recv(20, 25)});
  EXPECT_EQ(t.computing, 10);
  EXPECT_EQ(t.communication, 8);
  EXPECT_EQ(t.communication_not_overlapped, 5);
  EXPECT_EQ(t.free, 10);
  EXPECT_EQ(t.bubble, 8);
}

TEST(StepTraceOverlap, NoIntervalsGiveZeros) {
  const auto us = totals_in_us(whole_run_totals({}, {}));
  for (double v : us) EXPECT_EQ(v, 0.0);
}

TEST(StepTraceOverlap, MicrosecondsAreNanosecondsOverAThousand) {
  StepTraceTotals t;
  t.computing = 57106080;
  t.bubble = 1;
  const auto us = totals_in_us(t);
  EXPECT_EQ(us[0], 57106.08);  // Python's 57106080 / 1000
  EXPECT_EQ(us[6], 0.001);
  EXPECT_EQ(us[8], 0.0);  // preparing
}

}  // namespace
