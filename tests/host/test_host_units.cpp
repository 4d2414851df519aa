// The host analyses on small hand-made inputs: operator nesting and launch attribution, the Free
// breakdown's precedence, dispatch starvation and step assignment, packing and merging.

#include <gtest/gtest.h>

#include <fstream>

#include "host/data_queue.h"
#include "host/free_breakdown.h"
#include "host/host_findings.h"
#include "host/host_ops.h"
#include "host/host_summary.h"
#include "host/host_tables.h"
#include "support/test_files.h"

namespace cs::host {
namespace {

constexpr int64_t kUs = 1000;  // ns per µs

HostOp op(uint32_t name, int64_t tid, int64_t start_us, int64_t end_us) {
  return {name, tid, start_us * kUs, end_us * kUs, static_cast<double>(end_us - start_us)};
}

// Thread 1: A [0,100) holds B [10,40) which holds C [20,30); B2 [50,60) also in A.
// Thread 2: D [0,5). Launches: one issued at 25 (inside C), one at 45 (A itself), one at 55
// (B2, named B like the first B), one on thread 3 (no operator: not attributed).
HostInput nested() {
  HostInput in;
  in.names = {"A", "B", "C", "D"};
  in.ops = {op(0, 1, 0, 100), op(1, 1, 10, 40), op(2, 1, 20, 30), op(1, 1, 50, 60), op(3, 2, 0, 5)};
  auto launch = [](int64_t tid, int64_t issue_us, int64_t start_us, double dev_us) {
    DeviceLaunch l;
    l.tid = tid;
    l.issue_ns = l.launch_ns = issue_us * kUs;
    l.device_start_ns = start_us * kUs;
    l.device_us = dev_us;
    return l;
  };
  in.launches = {launch(1, 25, 30, 7), launch(1, 45, 300, 11), launch(1, 55, 75, 2),
                 launch(3, 1, 2, 100)};
  return in;
}

TEST(HostOps, SelfTimesAndLaunchAttribution) {
  const auto ops = operator_stats(nested());
  ASSERT_EQ(ops.size(), 4u);
  // By hand: A self = 100 - (30 + 10) = 60; B = (30 - 10) + 10 = 30 over 2 calls; C = 10; D = 5.
  EXPECT_EQ(ops[0].name, "A");
  EXPECT_DOUBLE_EQ(ops[0].host_self_us, 60);
  EXPECT_DOUBLE_EQ(ops[0].host_total_us, 100);
  EXPECT_DOUBLE_EQ(ops[0].device_self_us, 11);
  EXPECT_DOUBLE_EQ(ops[0].delay_max_us, 255);  // 300 - 45
  EXPECT_EQ(ops[0].delay_hist[3], 1);          // 255 µs: in [100, 500)
  EXPECT_EQ(ops[1].name, "B");
  EXPECT_EQ(ops[1].calls, 2);
  EXPECT_DOUBLE_EQ(ops[1].host_self_us, 30);
  EXPECT_DOUBLE_EQ(ops[1].device_self_us, 2);  // the launch at 55, in B2; not C's at 25
  EXPECT_DOUBLE_EQ(ops[1].delay_sum_us, 20);
  EXPECT_EQ(ops[2].name, "C");
  EXPECT_DOUBLE_EQ(ops[2].device_self_us, 7);
  EXPECT_DOUBLE_EQ(ops[2].delay_sum_us, 5);
  EXPECT_EQ(ops[2].delay_hist[0], 1);
  EXPECT_EQ(ops[3].launches, 0);
}

TEST(HostOps, ExplicitOperatorWinsOverNesting) {
  HostInput in = nested();
  in.launches[0].op = 1;  // the export names B [10,40) as the launcher, not C
  const auto ops = operator_stats(in);
  EXPECT_DOUBLE_EQ(ops[1].device_self_us, 9);
  EXPECT_DOUBLE_EQ(ops[2].device_self_us, 0);
}

// Two steps [0,1000) and [1000,2000). Free [100,300) in step 1 with a DataLoader range
// [0,150) and a compile range [120,250); Free [1100,1400) in step 2 ended by a task launched at
// 1200 (after the device went idle: dispatch), with a sync range [1300,1350) taking precedence;
// Free [1500,1600) ended by a task launched at 1400 (before: not dispatch, unattributed).
HostInput timeline() {
  HostInput in;
  in.has_free = true;
  in.steps = {{2, 1000 * kUs, 2000 * kUs}, {1, 0, 1000 * kUs}};
  in.free = {{100 * kUs, 300 * kUs, 200},
             {1100 * kUs, 1400 * kUs, 300},
             {1500 * kUs, 1600 * kUs, 100},
             {2500 * kUs, 2600 * kUs, 100}};
  in.causes = {{Cause::kData, 0, 150 * kUs},
               {Cause::kCompile, 120 * kUs, 250 * kUs},
               {Cause::kSync, 1300 * kUs, 1350 * kUs}};
  DeviceLaunch a, b;
  a.launch_ns = 1200 * kUs;
  a.device_start_ns = 1400 * kUs;
  b.launch_ns = 1400 * kUs;
  b.device_start_ns = 1600 * kUs;
  in.launches = {b, a};
  return in;
}

TEST(FreeBreakdown, CausesInPrecedenceAndSteps) {
  const auto rows = free_breakdown(timeline());
  ASSERT_EQ(rows.size(), 2u);
  const auto c = [](const StepFree& f, Cause k) { return f.cause_us[static_cast<size_t>(k)]; };
  EXPECT_EQ(rows[0].step, 1);
  EXPECT_DOUBLE_EQ(rows[0].free_us, 200);
  EXPECT_DOUBLE_EQ(c(rows[0], Cause::kData), 50);      // [100,150)
  EXPECT_DOUBLE_EQ(c(rows[0], Cause::kCompile), 100);  // [150,250)
  EXPECT_DOUBLE_EQ(rows[0].unattributed_us, 50);       // [250,300): no host range, no launch
  EXPECT_EQ(rows[1].step, 2);
  EXPECT_DOUBLE_EQ(rows[1].free_us, 400);  // the Free after the last step is no step's
  EXPECT_DOUBLE_EQ(c(rows[1], Cause::kSync), 50);
  EXPECT_DOUBLE_EQ(c(rows[1], Cause::kDispatch), 250);
  EXPECT_DOUBLE_EQ(rows[1].unattributed_us, 100);
}

TEST(FreeBreakdown, NoStepsOneRowAndNoFreeNoRows) {
  HostInput in = timeline();
  in.steps.clear();
  const auto rows = free_breakdown(in);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].step, -1);
  EXPECT_DOUBLE_EQ(rows[0].free_us, 700);
  in.has_free = false;
  EXPECT_TRUE(free_breakdown(in).empty());
  const auto un = unattributed_free({{3, 12.5}});
  ASSERT_EQ(un.size(), 1u);
  EXPECT_DOUBLE_EQ(un[0].unattributed_us, 12.5);
}

TEST(HostSummaryCodec, RoundTripAndMerge) {
  HostInput in = timeline();
  in.names = nested().names;
  in.ops = nested().ops;
  in.launches = nested().launches;
  const HostSummary s = summarize(in);
  io::ByteWriter w;
  pack_summary(s, w);
  io::ByteReader r(w.data());
  const HostSummary back = unpack_summary(r);
  EXPECT_TRUE(r.done());
  io::ByteWriter w2;
  pack_summary(back, w2);
  EXPECT_EQ(w.data(), w2.data());

  std::vector<OpStats> all;
  merge_ops(all, s.ops);
  merge_ops(all, s.ops);
  ASSERT_EQ(all.size(), s.ops.size());
  EXPECT_EQ(all[1].calls, 4);
  EXPECT_EQ(all[1].ranks, 2);
  EXPECT_DOUBLE_EQ(all[0].delay_max_us, 255);

  const io::Table t = host_ops_table({{0, &s}, {1, &back}});
  ASSERT_EQ(t.rows(), 4u);
  EXPECT_EQ(t.columns[0].strings[0], "A");      // largest host self time first
  EXPECT_EQ(t.find("host_bound")->ints[0], 1);  // A: 120 µs host self > 22 µs device
  const io::Table f = free_breakdown_table({{0, &s}, {1, &back}});
  ASSERT_EQ(f.rows(), 4u);
  EXPECT_EQ(f.find("rank")->ints[2], 1);
}

// Each rank's host-heaviest operators (the report's drill-down): ranks in the order given, each
// rank's `top` operators of largest host self time, values as the rank's own OpStats.
TEST(HostRankOps, TopOperatorsPerRank) {
  HostSummary a, b;
  a.ops = {{.name = "x",
            .calls = 2,
            .host_self_us = 10,
            .device_self_us = 30,
            .launches = 2,
            .delay_sum_us = 8},
           {.name = "y", .calls = 1, .host_self_us = 50, .device_self_us = 5, .launches = 1},
           {.name = "z", .calls = 1, .host_self_us = 20}};
  b.ops = {{.name = "x", .calls = 1, .host_self_us = 7}};
  const io::Table t = host_rank_ops_table({{3, &a}, {1, &b}}, 2);
  ASSERT_EQ(t.rows(), 3u);
  EXPECT_EQ(t.find("rank")->ints, (std::vector<int64_t>{3, 3, 1}));
  const io::Column& names = *t.find("operator");
  std::vector<std::string> seen;
  for (size_t i = 0; i < names.size(); ++i) seen.emplace_back(names.str(i));
  EXPECT_EQ(seen, (std::vector<std::string>{"y", "z", "x"}));
  EXPECT_EQ(t.find("host_bound")->ints, (std::vector<int64_t>{1, 0, 0}));  // y: 50 > 5, z: none
  EXPECT_DOUBLE_EQ(t.find("host_self_us")->doubles[2], 7);
  const io::Table one = host_rank_ops_table({{3, &a}}, 5);
  ASSERT_EQ(one.rows(), 3u);
  EXPECT_DOUBLE_EQ(one.find("launch_delay_mean_us")->doubles[2], 4);  // x: 8 µs over 2 launches
  // Names repeated across ranks are held once (the report keeps this table to the end).
  const io::Table twice = host_rank_ops_table({{3, &a}, {4, &a}, {1, &b}}, 5);
  ASSERT_EQ(twice.rows(), 7u);
  const io::Column& col = *twice.find("operator");
  ASSERT_TRUE(col.encoded);
  EXPECT_EQ(col.dict, (std::vector<std::string>{"y", "z", "x"}));
  EXPECT_EQ(col.codes, (std::vector<uint32_t>{0, 1, 2, 0, 1, 2, 2}));
}

// MindSpore's device queue file, worked by hand: 4 queue-size records (type 1), 2 of them 0
// (empty); type-0 records (times) are not counted; the line that is not five integers is reported
// with its line number and skipped.
TEST(DataQueue, EmptyShareByHand) {
  test::TempDir tmp;
  const std::string path = (tmp.path() / "device_queue_profiling_0.txt").string();
  std::ofstream(path) << "0 0 1 12 1000\n1 64 1 0 1001\n0 0 2 10 1002\n1 64 2 5 1003\n"
                         "1 64 x 0 1004\n1 64 3 0 1005\n\n1 64 4 2 1006\r\n";
  io::Diagnostics diag;
  DataQueueStats q;
  ASSERT_TRUE(read_data_queue(path, q, diag));
  EXPECT_EQ(q.batches, 4);
  EXPECT_EQ(q.empty, 2);
  EXPECT_DOUBLE_EQ(q.empty_share(), 0.5);
  ASSERT_EQ(diag.items().size(), 1u);
  EXPECT_EQ(diag.items()[0].line, 5);
  EXPECT_FALSE(read_data_queue((tmp.path() / "missing.txt").string(), q, diag));
}

// MindInsight's rule: empty in more than 30% of the steps names the rank; 30% exactly is silent.
TEST(DataQueue, FindingAboveThirtyPercent) {
  HostSummary a, b, c;
  a.queue_batches = 10, a.queue_empty = 3;  // 30%: not more than 30%
  b.queue_batches = 10, b.queue_empty = 4;  // 40%
  c.queue_batches = 0;                      // no queue file
  const auto one = host_findings({{0, &a}, {1, &b}, {2, &c}});
  ASSERT_EQ(one.lines.size(), 1u);
  EXPECT_EQ(one.lines[0],
            "The data pipeline is the bottleneck on rank(s) 1: the device queue was empty in 40% "
            "of the steps (median; MindInsight's rule: above 30%).");
  EXPECT_TRUE(host_findings({{0, &a}, {2, &c}}).lines.empty());
  b.queue_empty = 6;
  a.queue_empty = 5;
  const auto all = host_findings({{0, &a}, {1, &b}});
  ASSERT_EQ(all.lines.size(), 1u);
  EXPECT_NE(all.lines[0].find("on every rank"), std::string::npos) << all.lines[0];
  EXPECT_NE(all.lines[0].find("55%"), std::string::npos) << all.lines[0];
}

}  // namespace
}  // namespace cs::host
