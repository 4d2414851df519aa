// `clusterscope top`: shapes and cost estimates, grouping and ordering, and the real
// kernel_details.csv and Kineto samples.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "io/csv/csv_writer.h"
#include "report/table_view.h"
#include "support/test_data.h"
#include "top/top_cost.h"
#include "top/top_profile.h"
#include "top/top_table.h"

using namespace cs;
using namespace cs::report;
using namespace cs::top;

namespace {
using cs::test::kData;
}

TEST(TopCost, ParsesBothShapeNotations) {
  const auto a = parse_shapes("81920,4096;8192,512");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[1], (Shape{8192, 512}));
  const auto b = parse_shapes("[[2048, 1], [2048], []]");
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0], (Shape{2048, 1}));
  EXPECT_TRUE(b[2].empty());
  EXPECT_TRUE(parse_shapes("N/A").empty());
  EXPECT_TRUE(parse_shapes("3,x").empty());
  EXPECT_EQ(parse_shapes(";4").size(), 2u);  // a scalar, then a vector
  EXPECT_EQ(dtype_bytes("DT_BF16"), 2);
  EXPECT_EQ(dtype_bytes("float"), 4);
  EXPECT_EQ(dtype_bytes("INT64"), 8);
  EXPECT_EQ(dtype_bytes("mystery"), 0);
}

// Issue 17, finding 9: a damaged shape never overflows (UBSan's signed-overflow site) and never
// gives absurd FLOPs: a dim of 20 digits is unparseable, a product beyond 2^53 elements or
// FLOPs beyond 10^20 are unknown (NaN, shown as '-').
TEST(TopCost, HugeShapesGiveUnknownFlops) {
  EXPECT_TRUE(parse_shapes("99999999999999999999999,2;2,2").empty());
  EXPECT_TRUE(parse_shapes("[[99999999999999999999999, 2]]").empty());
  EXPECT_TRUE(std::isnan(elements({1000000, 1000000, 1000000})));
  EXPECT_TRUE(
      std::isnan(estimate_flops("MatMulV2", parse_shapes("1000000000,1000000;1000000,1000000"),
                                parse_shapes("1000000000,1000000"))));
  EXPECT_DOUBLE_EQ(elements({4096, 4096}), 4096.0 * 4096);
}

TEST(TopCost, MatmulConvAndElementwiseFlops) {
  // Plain A[M,K] x B[K,N] with the output shape.
  EXPECT_DOUBLE_EQ(
      estimate_flops("MatMulV2", parse_shapes("4096,512;512,1024"), parse_shapes("4096,1024")),
      2.0 * 4096 * 1024 * 512);
  // Transposed A ([K, M]) gives the same K through element counts.
  EXPECT_DOUBLE_EQ(
      estimate_flops("MatMulV3", parse_shapes("512,4096;512,1024"), parse_shapes("4096,1024")),
      2.0 * 4096 * 1024 * 512);
  // Kineto aten::mm without output shape; addmm's bias vector is ignored; batched bmm.
  EXPECT_DOUBLE_EQ(estimate_flops("aten::mm", parse_shapes("[[64, 32], [32, 16]]"), {}),
                   2.0 * 64 * 16 * 32);
  EXPECT_DOUBLE_EQ(
      estimate_flops("aten::addmm", parse_shapes("[[16], [64, 32], [32, 16], [], []]"), {}),
      2.0 * 64 * 16 * 32);
  EXPECT_DOUBLE_EQ(
      estimate_flops("BatchMatMulV2", parse_shapes("8,64,32;8,32,16"), parse_shapes("8,64,16")),
      2.0 * 8 * 64 * 16 * 32);
  EXPECT_DOUBLE_EQ(
      estimate_flops("aten::linear", parse_shapes("[[4, 128, 256], [512, 256], [512]]"), {}),
      2.0 * 4 * 128 * 512 * 256);
  // Conv: out [1,64,56,56], weight [64,3,7,7].
  EXPECT_DOUBLE_EQ(
      estimate_flops("Conv2D", parse_shapes("1,3,224,224;64,3,7,7"), parse_shapes("1,64,56,56")),
      2.0 * 64 * 56 * 56 * 3 * 7 * 7);
  EXPECT_DOUBLE_EQ(estimate_flops("Add", parse_shapes("10,10;10,10"), parse_shapes("10,10")), 100);
  EXPECT_TRUE(std::isnan(estimate_flops("Cast", parse_shapes("10,10"), parse_shapes("10,10"))));
  EXPECT_TRUE(std::isnan(estimate_flops("MatMulV2", {}, {})));
  // Bytes: bf16 inputs and output.
  EXPECT_DOUBLE_EQ(
      estimate_bytes(parse_shapes("4,4;4,4"), "DT_BF16;DT_BF16", parse_shapes("4,4"), ""),
      3 * 16 * 2.0);
  EXPECT_TRUE(std::isnan(estimate_bytes(parse_shapes("4,4"), "", {}, "")));
}

TEST(TopTable, GroupsOrdersAndFilters) {
  std::vector<OpCall> calls = {
      {"mm_a", "MatMul", "", "", "", 100, 1e9, 1e6},
      {"mm_b", "MatMul", "", "", "", 300, 3e9, 1e6},
      {"add", "Add", "", "", "", 50, 1e3, 8e6},
      {"cast", "Cast", "", "", "", 0.5, NAN, NAN},
  };
  TopOptions o;
  io::Table t = top_table(calls, o);
  ASSERT_EQ(t.rows(), 4u);
  EXPECT_EQ(ColumnRef(&t, "name").str(0), "mm_b");
  EXPECT_DOUBLE_EQ(ColumnRef(&t, "cumulative_pct").num(1), 100.0 * 400 / 450.5);
  EXPECT_DOUBLE_EQ(ColumnRef(&t, "tflops_per_s").num(0), 3e9 / 300 / 1e6);   // 10 TFLOP/s
  EXPECT_DOUBLE_EQ(ColumnRef(&t, "bandwidth_gbps").num(2), 8e6 / 50 / 1e3);  // 160 GB/s

  o.aggregate_by = TopOptions::By::kType;
  TopTotals totals;
  t = top_table(calls, o, &totals);
  ASSERT_EQ(t.rows(), 3u);
  EXPECT_EQ(ColumnRef(&t, "name").str(0), "MatMul");
  EXPECT_EQ(ColumnRef(&t, "calls").integer(0), 2);
  EXPECT_DOUBLE_EQ(ColumnRef(&t, "device_self_us").num(0), 400);
  EXPECT_EQ(totals.calls, 4u);
  o.aggregate = TopOptions::Aggregate::kMean;
  t = top_table(calls, o);
  EXPECT_DOUBLE_EQ(ColumnRef(&t, "device_self_us").num(0), 200);
  o.aggregate = TopOptions::Aggregate::kMax;
  t = top_table(calls, o);
  EXPECT_DOUBLE_EQ(ColumnRef(&t, "device_self_us").num(0), 300);

  o = TopOptions();
  o.order_by = TopOptions::Order::kMemory;
  t = top_table(calls, o);
  EXPECT_EQ(ColumnRef(&t, "name").str(0), "add");
  o.order_by = TopOptions::Order::kFlops;
  o.top_n = 1;
  t = top_table(calls, o);
  ASSERT_EQ(t.rows(), 1u);
  EXPECT_EQ(ColumnRef(&t, "name").str(0), "mm_b");

  o = TopOptions();
  o.min_time_s = 1e-6;   // drops the 0.5 µs cast
  o.types = {"matmul"};  // case-insensitive
  totals = TopTotals();
  t = top_table(calls, o, &totals);
  EXPECT_EQ(t.rows(), 2u);
  EXPECT_EQ(totals.calls, 2u);
  const std::string text = format_top_text(t, totals.calls, totals.time_us);
  EXPECT_NE(text.find("device self time"), std::string::npos);
  EXPECT_NE(text.find("2 rows from 2 calls, 400.0 \u00b5s device time in total"),
            std::string::npos);
}

TEST(TopProfile, RealKernelDetails) {
  std::vector<OpCall> calls;
  std::string used;
  io::Diagnostics diag;
  ASSERT_TRUE(load_op_calls(kData + "/ascend/kernel_details.csv", calls, used, diag));
  ASSERT_EQ(calls.size(), 29u);
  TopOptions o;
  o.top_n = 5;
  o.types = {"MatMulV2"};
  TopTotals totals;
  const io::Table t = top_table(calls, o, &totals);
  ASSERT_GE(t.rows(), 1u);
  // The MatMulV2 row of the sample: output 4096x512, K = 8192 (from B), 185.504 µs, bf16.
  const ColumnRef name(&t, "name"), type(&t, "type"), flops(&t, "flops"), in(&t, "input_shapes");
  bool found = false;
  for (size_t r = 0; r < t.rows(); ++r)
    if (type.str(r) == "MatMulV2" && in.str(r) == "81920,4096;8192,512") {
      EXPECT_DOUBLE_EQ(flops.num(r), 2.0 * 4096 * 512 * 8192);
      found = true;
    }
  EXPECT_TRUE(found) << format_top_text(t, totals.calls, totals.time_us);
  const io::Table csv = top_table(calls, o);
  EXPECT_NE(io::table_to_csv(csv).find("rank,name,type,calls,device_self_us"), std::string::npos);
}

TEST(TopProfile, RealKinetoTraceAttributesKernelsToOps) {
  std::vector<OpCall> calls;
  std::string used;
  io::Diagnostics diag;
  ASSERT_TRUE(load_op_calls(kData + "/kineto/sampled_rank-0.json.gz", calls, used, diag))
      << (diag.empty() ? "" : diag.items()[0].to_string());
  ASSERT_FALSE(calls.empty());
  size_t attributed = 0, with_flops = 0;
  for (const auto& c : calls) {
    attributed += c.type.rfind("aten::", 0) == 0 || c.type.find("Backward") != std::string::npos;
    with_flops += std::isfinite(c.flops);
  }
  EXPECT_GT(attributed, calls.size() / 2);
  EXPECT_GT(with_flops, 0u);
  TopOptions o;
  o.aggregate_by = TopOptions::By::kType;
  o.top_n = 10;
  TopTotals totals;
  const io::Table t = top_table(calls, o, &totals);
  EXPECT_EQ(totals.calls, calls.size());
  std::printf("%s", format_top_text(t, totals.calls, totals.time_us).c_str());
}

TEST(TopProfile, ResolvesDirectoriesAndReportsBadInput) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "cs_top_test_rank";
  fs::remove_all(dir);
  fs::create_directories(dir / "ASCEND_PROFILER_OUTPUT");
  fs::copy_file(kData + "/ascend/kernel_details.csv",
                dir / "ASCEND_PROFILER_OUTPUT/kernel_details.csv");
  std::vector<OpCall> calls;
  std::string used;
  io::Diagnostics diag;
  EXPECT_TRUE(load_op_calls(dir.string(), calls, used, diag));
  EXPECT_EQ(used, (dir / "ASCEND_PROFILER_OUTPUT/kernel_details.csv").string());
  EXPECT_EQ(calls.size(), 29u);
  io::Diagnostics bad;
  EXPECT_FALSE(load_op_calls((dir / "nope").string(), calls, used, bad));
  EXPECT_TRUE(bad.has_errors());
  fs::remove_all(dir / "ASCEND_PROFILER_OUTPUT");
  io::Diagnostics empty;
  EXPECT_FALSE(load_op_calls(dir.string(), calls, used, empty));
  ASSERT_TRUE(empty.has_errors());
  EXPECT_NE(empty.items()[0].what.find("no kernel_details.csv"), std::string::npos);
  fs::remove_all(dir);
}
