// `top` on MegEngine's profiles gives profile_analyze's table (tests/data/megengine, described in
// tests/readers/test_megengine.cpp). Expected values by hand from the file:
//   device time (ms): data 0.5, conv1 3.0, relu1 1.0, fc 2.0 (max of 2.0 and 1.5), relu2 0.5;
//   total 7.0 ms; shares are of those 7.0 ms whatever the filters, as profile_analyze computes
//   them (ratio and cumulative of "total device time").
#include <gtest/gtest.h>

#include <cmath>

#include "report/table_view.h"
#include "top/top_megengine.h"
#include "top/top_profile.h"
#include "top/top_table.h"

using namespace cs;
using namespace cs::report;

namespace {

const std::string kDir = std::string(CS_TEST_DATA) + "/megengine/";

std::vector<OpCall> static_calls() {
  std::vector<OpCall> calls;
  std::string used;
  io::Diagnostics diag;
  EXPECT_TRUE(load_op_calls(kDir + "static_graph.profile.json", calls, used, diag));
  return calls;
}

TopOptions megengine_options() {
  TopOptions o;
  o.share_of_all = true;
  return o;
}

TEST(TopMegEngine, DefaultTableIsProfileAnalyzes) {
  const auto calls = static_calls();
  ASSERT_EQ(calls.size(), 5u);  // shape_of has no device time
  TopOptions o = megengine_options();
  o.top_n = 3;  // profile_analyze's -t default
  const io::Table t = top_table(calls, o);
  ASSERT_EQ(t.rows(), 3u);
  const ColumnRef name(&t, "name"), time(&t, "device_self_us"), share(&t, "share_pct"),
      cum(&t, "cumulative_pct"), flops(&t, "flops"), tflops(&t, "tflops_per_s"), bytes(&t, "bytes"),
      bw(&t, "bandwidth_gbps"), in(&t, "input_shapes"), out(&t, "output_shapes"),
      dt(&t, "input_dtypes");
  EXPECT_EQ(name.str(0), "conv1");
  EXPECT_EQ(name.str(1), "fc");
  EXPECT_EQ(name.str(2), "relu1");
  EXPECT_NEAR(time.num(0), 3000, 1e-6);
  EXPECT_NEAR(share.num(0), 100.0 * 3 / 7, 1e-6);  // 42.9%
  EXPECT_NEAR(cum.num(1), 100.0 * 5 / 7, 1e-6);    // 71.4%
  EXPECT_NEAR(cum.num(2), 100.0 * 6 / 7, 1e-6);    // 85.7%
  EXPECT_DOUBLE_EQ(flops.num(0), 236027904);
  // 236027904 FLOP / 3 ms = 78.676 GFLOP/s = 0.078676 TFLOP/s.
  EXPECT_NEAR(tflops.num(0), 236027904 / 3e-3 / 1e12, 1e-9);
  EXPECT_DOUBLE_EQ(bytes.num(0), 3851008);
  // 3851008 bytes / 3 ms = 1.283669 GB/s (profile_analyze: 1.20 GiB/s).
  EXPECT_NEAR(bw.num(0), 3851008 / 3e-3 / 1e9, 1e-9);
  EXPECT_EQ(in.str(0), "{1,3,224,224}, {64,3,7,7}");
  EXPECT_EQ(out.str(0), "{1,64,112,112}");
  EXPECT_EQ(dt.str(0), "Float32;Float32");
}

TEST(TopMegEngine, AggregateOrderMinTimeAndType) {
  const auto calls = static_calls();
  // --aggregate-by type --aggregate sum: Elemwise = relu1 + relu2 = 1.5 ms, 802816 + 1000 FLOP,
  // 6422528 + 8000 bytes.
  TopOptions o = megengine_options();
  o.aggregate_by = TopOptions::By::kType;
  o.aggregate = TopOptions::Aggregate::kSum;
  io::Table t = top_table(calls, o);
  ASSERT_EQ(t.rows(), 4u);
  EXPECT_EQ(ColumnRef(&t, "name").str(0), "ConvolutionForward");
  EXPECT_EQ(ColumnRef(&t, "name").str(1), "MatrixMul");
  EXPECT_EQ(ColumnRef(&t, "name").str(2), "Elemwise");
  EXPECT_EQ(ColumnRef(&t, "calls").integer(2), 2);
  EXPECT_NEAR(ColumnRef(&t, "device_self_us").num(2), 1500, 1e-6);
  EXPECT_DOUBLE_EQ(ColumnRef(&t, "flops").num(2), 803816);
  EXPECT_DOUBLE_EQ(ColumnRef(&t, "bytes").num(2), 6430528);
  EXPECT_EQ(ColumnRef(&t, "name").str(3), "Host2DeviceCopy");
  EXPECT_TRUE(std::isnan(ColumnRef(&t, "flops").num(3)));  // computation null

  // --order-by memory: relu1 6422528 > conv1 3851008 > fc 2054048 > data 602112 > relu2 8000.
  o = megengine_options();
  o.order_by = TopOptions::Order::kMemory;
  t = top_table(calls, o);
  ASSERT_EQ(t.rows(), 5u);
  const std::vector<std::string> by_memory = {"relu1", "conv1", "fc", "data", "relu2"};
  for (size_t r = 0; r < 5; ++r) EXPECT_EQ(ColumnRef(&t, "name").str(r), by_memory[r]);

  // --min-time 0.0015 (seconds): conv1 and fc; their shares still of the 7 ms.
  o = megengine_options();
  o.min_time_s = 0.0015;
  TopTotals totals;
  t = top_table(calls, o, &totals);
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(totals.calls, 2u);
  EXPECT_NEAR(ColumnRef(&t, "cumulative_pct").num(1), 100.0 * 5 / 7, 1e-6);

  // --type Elemwise: relu1 1.0 ms (14.3%), relu2 0.5 ms; cumulative 1.5 / 7 = 21.4%.
  o = megengine_options();
  o.type = "Elemwise";
  t = top_table(calls, o);
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_NEAR(ColumnRef(&t, "share_pct").num(0), 100.0 / 7, 1e-6);
  EXPECT_NEAR(ColumnRef(&t, "cumulative_pct").num(1), 100.0 * 1.5 / 7, 1e-6);
  // Without share_of_all the base is the filtered calls (other inputs' behaviour).
  o.share_of_all = false;
  t = top_table(calls, o);
  EXPECT_NEAR(ColumnRef(&t, "cumulative_pct").num(1), 100.0, 1e-9);
}

TEST(TopMegEngine, TimelineDeviceSpansTypedByTheirOp) {
  std::vector<OpCall> calls;
  std::string used;
  io::Diagnostics diag;
  ASSERT_TRUE(load_op_calls(kDir + "dynamic.chrome_timeline.json", calls, used, diag));
  TopOptions o;
  TopTotals totals;
  const io::Table t = top_table(calls, o, &totals);
  // Convolution 100, MatrixMul 80, CollectiveComm 60, Elemwise 20, Elemwise 10, HostToDevice 4.
  ASSERT_EQ(t.rows(), 6u);
  const ColumnRef name(&t, "name"), type(&t, "type"), time(&t, "device_self_us");
  const std::vector<std::string> names = {"Convolution", "MatrixMul", "CollectiveComm",
                                          "Elemwise",    "Elemwise",  "HostToDevice"};
  const std::vector<double> us = {100, 80, 60, 20, 10, 4};
  for (size_t r = 0; r < 6; ++r) {
    EXPECT_EQ(name.str(r), names[r]);
    EXPECT_NEAR(time.num(r), us[r], 1e-9);
  }
  // Linked through the KernelLaunch flow to the op executing on the worker.
  EXPECT_EQ(type.str(0), "Convolution");
  EXPECT_EQ(type.str(5), "Memcpy");
  EXPECT_NEAR(totals.time_us, 274, 1e-9);
}

}  // namespace
