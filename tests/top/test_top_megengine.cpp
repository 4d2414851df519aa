// `top` on MegEngine's profiles gives profile_analyze's table (tests/data/megengine, described in
// tests/readers/test_megengine.cpp). Expected values by hand from the file:
//   device time (ms): data 0.5, conv1 3.0, relu1 1.0, fc 2.0 (max of 2.0 and 1.5), relu2 0.5;
//   total 7.0 ms; shares are of those 7.0 ms whatever the filters, as profile_analyze computes
//   them (ratio and cumulative of "total device time").
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "readers/megengine_profile.h"
#include "report/table_view.h"
#include "top/top_megengine.h"
#include "top/top_profile.h"
#include "top/top_table.h"

using namespace cs;
using namespace cs::report;
using namespace cs::top;

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
  o.types = {"Elemwise"};
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

// copy_graph.profile.json, by hand (ms; device time = max over comp nodes of end − start,
// kern = max of kern − start; host in µs):
//   id name           type               device end  kern   host end  kern  input dtypes
//   1  data           Host2DeviceCopy    0.2         0.05   10        5     -
//   2  pre_conv_copy  Copy               0.4         0.1    10        2     Float32
//   3  conv.w_copy    Copy               max(0.3,0.5)=0.5  max(0.2,0.1)=0.2  20  5  Float16
//   4  conv           ConvolutionForward 2.0         0.1    30        10    Float32;Float16
//   5  fc             MatrixMul          1.0         0      40        10    Float32;Float32
//   6  shape          GetVarShape        (none)      -      5         0     Float32
//   total device 0.2+0.4+0.5+2.0+1.0 = 4.1 ms; total host 10+10+20+30+40+5 = 115 µs.
readers::MegEngineProfile copy_profile() {
  readers::MegEngineProfile p;
  io::Diagnostics diag;
  EXPECT_TRUE(readers::read_megengine_profile(kDir + "copy_graph.profile.json", p, diag));
  return p;
}

std::vector<std::string> names(const io::Table& t) {
  std::vector<std::string> out;
  for (size_t r = 0; r < t.rows(); ++r) out.push_back(ColumnRef(&t, "name").str(r));
  return out;
}

TEST(TopMegEngine, TopEndKeyKernTimesSharedOfTheEndTotal) {
  const readers::MegEngineProfile p = copy_profile();
  std::vector<OpCall> calls;
  calls_from_megengine(p, calls, {.host = false, .kern = true});
  ASSERT_EQ(calls.size(), 5u);
  TopOptions o = megengine_options();
  o.share_total_us = megengine_summary(p, o).device_us;  // 4100 µs by end − start
  const io::Table t = top_table(calls, o);
  // kern: w_copy 0.2, then pre_conv_copy and conv 0.1 (in id order), data 0.05, fc 0.
  EXPECT_EQ(names(t),
            (std::vector<std::string>{"conv.w_copy", "pre_conv_copy", "conv", "data", "fc"}));
  EXPECT_NEAR(ColumnRef(&t, "device_self_us").num(0), 200, 1e-6);
  EXPECT_NEAR(ColumnRef(&t, "share_pct").num(0), 100.0 * 0.2 / 4.1, 1e-6);  // 4.88%, not 44%
}

TEST(TopMegEngine, AggregateMinAndAggregateWithoutGroupingIsOneRow) {
  std::vector<OpCall> calls;
  calls_from_megengine(copy_profile(), calls);
  TopOptions o = megengine_options();
  o.aggregate_by = TopOptions::By::kType;
  o.aggregate = TopOptions::Aggregate::kMin;
  io::Table t = top_table(calls, o);
  // Copy: min(0.4, 0.5) = 0.4 ms over 2 calls, memory min(24576, 864) = 864.
  const ColumnRef name(&t, "name"), time(&t, "device_self_us"), calls_col(&t, "calls");
  ASSERT_EQ(t.rows(), 4u);
  EXPECT_EQ(name.str(2), "Copy");
  EXPECT_EQ(calls_col.integer(2), 2);
  EXPECT_NEAR(time.num(2), 400, 1e-6);
  EXPECT_DOUBLE_EQ(ColumnRef(&t, "bytes").num(2), 864);
  // profile_analyze's --aggregate without --aggregate-by: one row "all" of the 5 operators.
  // min 0.2 (data), max 2.0 (conv), mean 4.1 / 5 = 0.82, sum 4.1 ms.
  const std::vector<std::pair<TopOptions::Aggregate, double>> want = {
      {TopOptions::Aggregate::kMin, 200},
      {TopOptions::Aggregate::kMax, 2000},
      {TopOptions::Aggregate::kMean, 820},
      {TopOptions::Aggregate::kSum, 4100}};
  for (const auto& [agg, us] : want) {
    o.aggregate_by = TopOptions::By::kAll;
    o.aggregate = agg;
    t = top_table(calls, o);
    ASSERT_EQ(t.rows(), 1u);
    EXPECT_EQ(ColumnRef(&t, "name").str(0), "all");
    EXPECT_EQ(ColumnRef(&t, "calls").integer(0), 5);
    EXPECT_NEAR(ColumnRef(&t, "device_self_us").num(0), us, 1e-6) << us;
  }
}

TEST(TopMegEngine, OprNameInputDtypeTypesAndTimeWindow) {
  std::vector<OpCall> calls;
  calls_from_megengine(copy_profile(), calls);
  TopOptions o = megengine_options();
  // re.match semantics: "conv" matches conv and conv.w_copy, not pre_conv_copy.
  o.name_regex.emplace("conv");
  EXPECT_EQ(names(top_table(calls, o)), (std::vector<std::string>{"conv", "conv.w_copy"}));
  o.name_regex.emplace(".*copy");
  EXPECT_EQ(names(top_table(calls, o)), (std::vector<std::string>{"conv.w_copy", "pre_conv_copy"}));
  // An input of exactly Float16: conv.w_copy and conv (not "Float32"-only fc).
  o = megengine_options();
  o.input_dtype = "Float16";
  EXPECT_EQ(names(top_table(calls, o)), (std::vector<std::string>{"conv", "conv.w_copy"}));
  o.input_dtype = "Float";  // exact, not a prefix
  EXPECT_EQ(top_table(calls, o).rows(), 0u);
  // --type repeated: either type.
  o = megengine_options();
  o.types = {"MatrixMul", "host2devicecopy"};
  EXPECT_EQ(names(top_table(calls, o)), (std::vector<std::string>{"fc", "data"}));
  // --min-time 0.0003 --max-time 0.0009 (s): 0.4 and 0.5 ms; shares of the 4.1 ms.
  o = megengine_options();
  o.min_time_s = 0.0003;
  o.max_time_s = 0.0009;
  const io::Table t = top_table(calls, o);
  EXPECT_EQ(names(t), (std::vector<std::string>{"conv.w_copy", "pre_conv_copy"}));
  EXPECT_NEAR(ColumnRef(&t, "cumulative_pct").num(1), 100.0 * 0.9 / 4.1, 1e-6);
  // -t 0: every row.
  o = megengine_options();
  o.top_n = 0;
  EXPECT_EQ(top_table(calls, o).rows(), 5u);
}

TEST(TopMegEngine, SummaryBlockWithCopyTime) {
  const readers::MegEngineProfile p = copy_profile();
  TopOptions o;
  MegEngineSummary s = megengine_summary(p, o);
  EXPECT_NEAR(s.device_us, 4100, 1e-6);
  EXPECT_NEAR(s.host_us, 115, 1e-6);
  // Copy: end 0.4 + 0.5 = 0.9 ms (avg 0.45), kern 0.1 + 0.2 = 0.3 ms (avg 0.15).
  EXPECT_EQ(s.copies, 2u);
  EXPECT_NEAR(s.copy_us, 900, 1e-6);
  EXPECT_NEAR(s.copy_wait_us, 300, 1e-6);
  EXPECT_EQ(format_megengine_summary(s, true),
            "total device time  4.10 ms\n"
            "total host time    115.0 \u00b5s\n"
            "copy time          tot=900.0 \u00b5s avg=450.0 \u00b5s over 2 Copy operators\n"
            "copy wait time     tot=300.0 \u00b5s avg=150.0 \u00b5s over 2 Copy operators\n");
  EXPECT_EQ(format_megengine_summary(s, false).find("copy"), std::string::npos);
  // The copy figures follow the filters (profile_analyze's analyzer), the totals do not.
  o.input_dtype = "Float16";
  s = megengine_summary(p, o);
  EXPECT_NEAR(s.device_us, 4100, 1e-6);
  EXPECT_EQ(s.copies, 1u);
  EXPECT_NEAR(s.copy_us, 500, 1e-6);
  EXPECT_NEAR(s.copy_wait_us, 200, 1e-6);
  o.types = {"Elemwise"};
  EXPECT_NE(format_megengine_summary(megengine_summary(p, o), true)
                .find("N/A (no Copy operator passed the filters)"),
            std::string::npos);
  // No host times at all: "N/A".
  readers::MegEngineProfile none = p;
  for (auto& op : none.ops) op.host_s = -1;
  none.total_host_s = 0;
  EXPECT_NE(
      format_megengine_summary(megengine_summary(none, {}), false).find("total host time    N/A"),
      std::string::npos);
}

TEST(TopMegEngine, OrderByRatesAmountsAndAscending) {
  // static_graph.profile.json: computation conv1 236027904, fc 1024000, relu1 802816, relu2 1000
  // (data: none); FLOP/µs conv1 78676, relu1 802.8, fc 512, relu2 2. Bandwidth (bytes/µs):
  // relu1 6422528/1000 = 6422.5, data 602112/500 = 1204.2, conv1 3851008/3000 = 1283.7,
  // fc 2054048/2000 = 1027.0, relu2 8000/500 = 16.
  const auto calls = static_calls();
  TopOptions o = megengine_options();
  o.order_by = TopOptions::Order::kComputation;
  EXPECT_EQ(names(top_table(calls, o)),
            (std::vector<std::string>{"conv1", "fc", "relu1", "relu2", "data"}));
  o.order_by = TopOptions::Order::kFlops;  // profile_analyze's flops: a rate
  EXPECT_EQ(names(top_table(calls, o)),
            (std::vector<std::string>{"conv1", "relu1", "fc", "relu2", "data"}));
  o.ascending = true;  // "+flops": smallest first, data (N/A) still last
  EXPECT_EQ(names(top_table(calls, o)),
            (std::vector<std::string>{"relu2", "fc", "relu1", "conv1", "data"}));
  o.ascending = false;
  o.order_by = TopOptions::Order::kBandwidth;
  EXPECT_EQ(names(top_table(calls, o)),
            (std::vector<std::string>{"relu1", "conv1", "data", "fc", "relu2"}));
}

TEST(TopMegEngine, CuptiKernelsTypedByTheOpThatLaunchedThem) {
  // cupti.chrome_timeline.json (tests/readers/test_megengine.cpp): each CUPTI kernel's KernelLink
  // flow starts inside its op on the worker and ends at the kernel's END on the stream.
  std::vector<OpCall> calls;
  std::string used;
  io::Diagnostics diag;
  ASSERT_TRUE(load_op_calls(kDir + "cupti.chrome_timeline.json", calls, used, diag));
  ASSERT_EQ(calls.size(), 4u);  // the per-op device span is an annotation, not a call
  std::map<std::string, std::string> type_of;
  for (const auto& c : calls) type_of[c.name] = c.type;
  EXPECT_EQ(type_of["cudnn::detail::implicit_convolve_sgemm"], "Convolution");
  EXPECT_EQ(type_of["sgemm_128x64_nn"], "MatrixMul");
  EXPECT_EQ(type_of["megdnn::cuda::elemwise_kernel"], "Elemwise");
  EXPECT_EQ(type_of["ncclKernel_AllReduce_RING_LL_Sum_float"], "CollectiveComm");
}

}  // namespace
