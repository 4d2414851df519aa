// kernel_details.csv and op_statistic.csv readers on the real Ascend samples and hand-made bad
// files. Expected values were read off the samples (Python's csv module agrees).

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "readers/kernel_details.h"
#include "support/test_files.h"

namespace cs::io {
namespace {

using cs::test::all_diags;

const std::string kAscend = std::string(CS_TEST_DATA) + "/ascend/";
const std::string kBad = std::string(CS_TEST_DATA) + "/malformed/";

// A copy of a KernelRecord that outlives the callback.
struct Kernel {
  int64_t step_id;
  std::string name, type, core, in_shapes, in_dtypes, out_shapes;
  double start, dur, wait, aicore, aiv;
  int64_t line;
};

std::vector<Kernel> read(const std::string& path, Diagnostics& diag, bool* ok = nullptr) {
  std::vector<Kernel> out;
  bool r = readers::read_kernel_details_csv(
      path,
      [&](const readers::KernelRecord& k) {
        out.push_back({k.step_id, std::string(k.name), std::string(k.type),
                       std::string(k.accelerator_core), std::string(k.input_shapes),
                       std::string(k.input_dtypes), std::string(k.output_shapes), k.start_us,
                       k.duration_us, k.wait_us, k.aicore_time_us, k.aiv_time_us, k.line});
      },
      diag);
  if (ok != nullptr) *ok = r;
  return out;
}

TEST(KernelDetails, RealSample) {
  Diagnostics diag;
  bool ok = false;
  auto ks = read(kAscend + "kernel_details.csv", diag, &ok);
  ASSERT_TRUE(ok) << all_diags(diag);
  EXPECT_TRUE(diag.empty()) << all_diags(diag);
  ASSERT_EQ(ks.size(), 29u);

  const Kernel& k = ks[0];
  EXPECT_EQ(k.step_id, 19);
  EXPECT_EQ(k.name, "aclnnMatmul_MatMulCommon_MatMulV2");
  EXPECT_EQ(k.type, "MatMulV2");
  EXPECT_EQ(k.core, "AI_CORE");
  EXPECT_EQ(k.in_shapes, "81920,4096;8192,512");
  EXPECT_EQ(k.in_dtypes, "DT_BF16;DT_BF16");
  EXPECT_EQ(k.out_shapes, "4096,512");
  EXPECT_DOUBLE_EQ(k.start, 1736413971558972.912);  // "1736413971558972.912\t"
  EXPECT_DOUBLE_EQ(k.dur, 185.504);
  EXPECT_DOUBLE_EQ(k.wait, 1.087);
  EXPECT_DOUBLE_EQ(k.aicore, 183.87);
  EXPECT_EQ(k.aiv, 0);
  EXPECT_EQ(k.line, 2);

  EXPECT_EQ(ks[1].in_shapes, "81920,1536;8192,4096");
  EXPECT_DOUBLE_EQ(ks[1].dur, 501.17);

  const Kernel& last = ks[28];
  EXPECT_EQ(last.name, "aclnnAdd_AddAiCore_Add");
  EXPECT_EQ(last.core, "AI_VECTOR_CORE");
  EXPECT_EQ(last.in_shapes, ";");
  EXPECT_EQ(last.out_shapes, "");
  EXPECT_DOUBLE_EQ(last.dur, 1.58);
  EXPECT_DOUBLE_EQ(last.wait, 28.28);
  EXPECT_DOUBLE_EQ(last.aiv, 1.107);
  EXPECT_EQ(last.line, 30);

  double total = 0, wait = 0;
  std::map<std::string, int> by_type, by_core;
  for (const auto& x : ks) {
    total += x.dur;
    wait += x.wait;
    ++by_type[x.type];
    ++by_core[x.core];
    EXPECT_EQ(x.step_id, 19);
  }
  EXPECT_NEAR(total, 10061.159, 1e-6);
  EXPECT_NEAR(wait, 113.955, 1e-6);
  EXPECT_EQ(by_type, (std::map<std::string, int>{{"Add", 8},
                                                 {"FlashAttentionScore", 5},
                                                 {"FlashAttentionScoreGrad", 4},
                                                 {"MatMulV2", 4},
                                                 {"MatMulV3", 8}}));
  EXPECT_EQ(by_core,
            (std::map<std::string, int>{{"AI_CORE", 12}, {"AI_VECTOR_CORE", 8}, {"MIX_AIC", 9}}));
}

TEST(KernelDetails, RealSmallSampleHasNoStepsNorCounters) {
  Diagnostics diag;
  auto ks = read(kAscend + "kernel_details_small.csv", diag);
  EXPECT_TRUE(diag.empty()) << all_diags(diag);
  ASSERT_EQ(ks.size(), 8u);
  double total = 0;
  for (const auto& k : ks) {
    EXPECT_EQ(k.step_id, -1);
    EXPECT_EQ(k.type, "N/A");
    EXPECT_TRUE(std::isnan(k.aicore));
    EXPECT_TRUE(std::isnan(k.aiv));
    EXPECT_EQ(k.in_shapes, "");
    total += k.dur;
  }
  EXPECT_NEAR(total, 1000.8498, 1e-9);
  EXPECT_EQ(ks[0].name, "Cast16");
  EXPECT_DOUBLE_EQ(ks[0].dur, 932.0498);
  EXPECT_DOUBLE_EQ(ks[4].start, 1702866902996956.8);
  EXPECT_DOUBLE_EQ(ks[1].wait, 199251.9502);
}

TEST(KernelDetails, QuirksFile) {
  Diagnostics diag;
  auto ks = read(kBad + "csv_quirks.csv", diag);
  // Row 2 has Duration N/A: reported and skipped.
  ASSERT_EQ(ks.size(), 2u) << all_diags(diag);
  EXPECT_EQ(ks[0].name, "hcom_allReduce__184_0_1\nat train.py:42");
  EXPECT_EQ(ks[0].type, "Hcom, AllReduce");
  EXPECT_EQ(ks[0].in_shapes, "8,16;32");
  EXPECT_EQ(ks[0].out_shapes, "say \"hi\"");
  EXPECT_DOUBLE_EQ(ks[0].dur, 185.504);  // "185.504\t"
  EXPECT_DOUBLE_EQ(ks[0].wait, 1.087);   // " 1.087 "
  EXPECT_EQ(ks[1].step_id, 20);
  EXPECT_EQ(ks[1].line, 6);
  ASSERT_EQ(diag.items().size(), 1u) << all_diags(diag);
  EXPECT_EQ(diag.items()[0].line, 5);
  EXPECT_NE(diag.items()[0].what.find("Duration(us)"), std::string::npos);
  EXPECT_NE(diag.items()[0].hint.find("skipped"), std::string::npos);
}

TEST(KernelDetails, WrongTypes) {
  Diagnostics diag;
  const std::string path = kBad + "csv_wrong_types.csv";
  auto ks = read(path, diag);
  ASSERT_EQ(ks.size(), 3u);  // "fast" duration skipped
  EXPECT_EQ(ks[1].name, "trans_TransData_20");
  EXPECT_TRUE(std::isnan(ks[1].start));  // 17028669029x6917
  EXPECT_TRUE(std::isnan(ks[1].wait));   // abc
  EXPECT_TRUE(std::isnan(ks[2].wait));   // 0x1F
  EXPECT_DOUBLE_EQ(ks[2].dur, 1.22);
  ASSERT_EQ(diag.items().size(), 4u) << all_diags(diag);
  for (const auto& d : diag.items()) {
    EXPECT_EQ(d.file, path);
    EXPECT_GT(d.line, 0);
    EXPECT_GT(d.offset, 0);
    EXPECT_EQ(d.severity, Severity::kWarning);
  }
  EXPECT_EQ(diag.items()[0].line, 3);
  // What was expected, not the cell's text.
  EXPECT_NE(diag.items()[0].what.find("expected a number"), std::string::npos);
  EXPECT_EQ(diag.items()[0].what.find("fast"), std::string::npos);
}

TEST(KernelDetails, HugeNumbersAreMissingWithAWarning) {
  Diagnostics diag;
  auto ks = read(kBad + "csv_huge_numbers.csv", diag);
  ASSERT_EQ(ks.size(), 3u);              // 1e999 duration skipped
  EXPECT_TRUE(std::isnan(ks[1].wait));   // -1e999
  EXPECT_TRUE(std::isnan(ks[2].start));  // 1e400
  EXPECT_TRUE(std::isnan(ks[2].wait));   // 1e-400
  ASSERT_EQ(diag.warning_count(), 4u) << all_diags(diag);
  for (const auto& d : diag.items()) {
    EXPECT_NE(d.what.find("out of the range"), std::string::npos) << d.what;
  }
}

TEST(KernelDetails, NaNCells) {
  Diagnostics diag;
  auto ks = read(kBad + "csv_nan.csv", diag);
  // NaN, N/A and empty durations are skipped; nan / inf waits become NaN with a warning.
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[0].name, "trans_Cast_19");
  EXPECT_TRUE(std::isnan(ks[0].wait));
  EXPECT_TRUE(std::isnan(ks[1].wait));
  EXPECT_EQ(diag.items().size(), 5u) << all_diags(diag);
  EXPECT_NE(diag.items()[0].what.find("NaN or infinite"), std::string::npos);
  EXPECT_EQ(diag.items()[3].line, 5);  // N/A duration
  EXPECT_EQ(diag.items()[4].line, 6);  // empty duration
}

TEST(KernelDetails, MissingRequiredColumn) {
  Diagnostics diag;
  bool ok = true;
  auto ks = read(kAscend + "cluster_step_trace_time.csv", diag, &ok);
  EXPECT_FALSE(ok);
  EXPECT_TRUE(ks.empty());
  ASSERT_EQ(diag.items().size(), 1u);
  EXPECT_NE(diag.items()[0].what.find("no \"Name\" column"), std::string::npos);
}

TEST(KernelDetails, MinimalColumnsAreEnough) {
  Diagnostics diag;
  auto ks = read(kBad + "csv_missing_columns.csv", diag);
  EXPECT_TRUE(diag.empty()) << all_diags(diag);
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[1].name, "Add_2");
  EXPECT_EQ(ks[1].dur, 3);
  EXPECT_TRUE(std::isnan(ks[1].start));
  EXPECT_EQ(ks[1].core, "");
}

TEST(KernelDetails, UnusableFiles) {
  for (const char* name : {"csv_empty.csv", "csv_binary.csv", "csv_utf16.csv", "nope.csv"}) {
    Diagnostics diag;
    bool ok = true;
    auto ks = read(kBad + name, diag, &ok);
    EXPECT_FALSE(ok) << name;
    EXPECT_TRUE(ks.empty());
    ASSERT_EQ(diag.error_count(), 1u) << all_diags(diag);
    EXPECT_EQ(diag.items()[0].file, kBad + name);
  }
}

TEST(KernelDetails, TruncatedFiles) {
  Diagnostics d1;
  auto a = read(kBad + "csv_truncated_mid_row.csv", d1);
  EXPECT_EQ(a.size(), 3u);
  ASSERT_EQ(d1.items().size(), 1u);
  EXPECT_EQ(d1.items()[0].line, 5);

  Diagnostics d2;
  auto b = read(kBad + "csv_truncated_mid_quote.csv", d2);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].in_shapes, "81920,4096;8192,512");
  ASSERT_EQ(d2.items().size(), 1u);
  EXPECT_EQ(d2.items()[0].line, 3);
}

TEST(KernelDetails, ManyBadCellsAreSummarised) {
  std::string text = "Name,Duration(us),Wait Time(us)\n";
  for (int i = 0; i < 1000; ++i) {
    text += 'k';  // (appended piecewise: GCC 12 -O3 warns falsely on "k" + to_string(i))
    text += std::to_string(i);
    text += ",1.5,oops\n";
  }
  Diagnostics diag;
  int n = 0;
  ASSERT_TRUE(readers::parse_kernel_details_csv(
      text, "mem.csv", [&](const readers::KernelRecord&) { ++n; }, diag));
  EXPECT_EQ(n, 1000);
  ASSERT_EQ(diag.items().size(), 4u);  // 3 reported + 1 summary
  EXPECT_NE(diag.items()[3].what.find("997 more"), std::string::npos) << diag.items()[3].what;
}

TEST(OpStatistic, ParsesByHeaderName) {
  const std::string text =
      "OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\n"
      "MatMulV3,AI_CORE,8,3913.271,489.226,489.158875,516.991,38.894\t\n"
      "Add,AI_VECTOR_CORE,8,14.91,1.58,1.86375,2.44,N/A\n"
      "Bad,AI_CORE,1e999,1,1,1,1,1\n";
  Diagnostics diag;
  std::vector<readers::OpStatisticRow> rows;
  ASSERT_TRUE(readers::parse_op_statistic_csv(text, "op_statistic.csv", rows, diag));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].op_type, "MatMulV3");
  EXPECT_EQ(rows[0].core_type, "AI_CORE");
  EXPECT_EQ(rows[0].count, 8);
  EXPECT_DOUBLE_EQ(rows[0].total_us, 3913.271);
  EXPECT_DOUBLE_EQ(rows[0].max_us, 516.991);
  EXPECT_DOUBLE_EQ(rows[0].ratio_pct, 38.894);
  EXPECT_TRUE(std::isnan(rows[1].ratio_pct));
  EXPECT_TRUE(std::isnan(rows[2].count));
  ASSERT_EQ(diag.items().size(), 1u);
  EXPECT_EQ(diag.items()[0].line, 4);

  Diagnostics d2;
  std::vector<readers::OpStatisticRow> none;
  EXPECT_FALSE(readers::read_op_statistic_csv(kAscend + "kernel_details_small.csv", none, d2));
  EXPECT_EQ(d2.error_count(), 1u);
}

}  // namespace
}  // namespace cs::io
