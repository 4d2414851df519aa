// `clusterscope top` on the DB export (the real db_level1 / db_level0 samples in tests/data):
// the rank directory resolves to ascend_pytorch_profiler_N.db, every compute kernel and
// collective is read, and the FLOPs of the Conv2D kernels equal those derived from the same
// model's kernel_details.csv (text_level1) — same shapes and private formats, other reader.
//
// Totals checked independently with sqlite3 on the same file:
//   SELECT sum(t.endNs - t.startNs) FROM COMPUTE_TASK_INFO c JOIN TASK t
//          ON t.globalTaskId = c.globalTaskId;                        -> 8903431 ns
//   SELECT sum(endNs - startNs) FROM COMMUNICATION_OP;               -> 102108100 ns
//   row counts 187 + 4 = 191
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "support/test_data.h"
#include "top/top_profile.h"

using namespace cs;
using namespace cs::top;

namespace {

using cs::test::kData;

double calls_total_us(const std::vector<OpCall>& calls) {
  double t = 0;
  for (const auto& c : calls) t += c.dur_us;
  return t;
}

}  // namespace

TEST(TopDb, RankDirectoryReadsTheProfilerDatabase) {
  std::vector<OpCall> calls;
  std::string used;
  io::Diagnostics diag;
  ASSERT_TRUE(load_op_calls(kData + "/ascend-real/db_level1/rank0_ascend_pt", calls, used, diag))
      << (diag.empty() ? "" : diag.items()[0].to_string());
  EXPECT_TRUE(used.ends_with("ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db")) << used;
  ASSERT_EQ(calls.size(), 191u);
  EXPECT_NEAR(calls_total_us(calls), 8903.431 + 102108.1, 1e-6);
  size_t hcom = 0;
  for (const auto& c : calls) {
    if (c.type != "hcom_allReduce_") continue;
    ++hcom;
    EXPECT_TRUE(c.name.starts_with("hcom_allReduce__210_")) << c.name;
  }
  EXPECT_EQ(hcom, 4u);
  // Shapes come without the quotes the database stores around them.
  for (const auto& c : calls) EXPECT_EQ(c.input_shapes.find('"'), std::string::npos) << c.name;
}

TEST(TopDb, ConvFlopsAgreeWithKernelDetailsOfTheSameModel) {
  auto conv_flops = [](const std::string& profile) {
    std::vector<OpCall> calls;
    std::string used;
    io::Diagnostics diag;
    EXPECT_TRUE(load_op_calls(profile, calls, used, diag)) << profile;
    std::map<std::string, double> by_shapes;  // Conv2D input shapes -> GFLOP
    for (const auto& c : calls)
      if (c.type == "Conv2D") by_shapes[c.input_shapes] = c.flops;
    return by_shapes;
  };
  const auto db = conv_flops(kData + "/ascend-real/db_level1/rank0_ascend_pt");
  const auto text = conv_flops(kData + "/ascend-real/text_level1/rank0_ascend_pt");
  ASSERT_EQ(db.size(), 5u);
  ASSERT_EQ(db.size(), text.size());
  size_t derived = 0;
  for (const auto& [shapes, flops] : db) {
    ASSERT_TRUE(text.count(shapes)) << shapes;
    if (std::isnan(flops)) {
      EXPECT_TRUE(std::isnan(text.at(shapes))) << shapes;
      continue;
    }
    EXPECT_DOUBLE_EQ(flops, text.at(shapes)) << shapes;
    ++derived;
  }
  EXPECT_EQ(derived, 4u);  // Conv2D1's single C0 block of input channels is not derivable
}

TEST(TopDb, Level0CollectivesTypedFromTheirNames) {
  std::vector<OpCall> calls;
  std::string used;
  io::Diagnostics diag;
  ASSERT_TRUE(load_op_calls(kData + "/ascend-real/db_level0/rank1_ascend_pt", calls, used, diag));
  size_t hcom = 0;
  for (const auto& c : calls) {  // Level0 types every task "N/A"; collectives get their type
    if (!c.name.starts_with("hcom_")) continue;
    EXPECT_EQ(c.type, "hcom_allReduce_") << c.name;
    ++hcom;
  }
  EXPECT_EQ(hcom, 4u);
}

TEST(TopDb, AnalysisDbIsNamedForWhatItIsNot) {
  std::vector<OpCall> calls;
  std::string used;
  io::Diagnostics diag;
  EXPECT_FALSE(load_op_calls(
      kData + "/ascend-real/db_level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db", calls,
      used, diag));
  ASSERT_TRUE(diag.has_errors());
  EXPECT_NE(diag.items()[0].hint.find("ascend_pytorch_profiler_N.db"), std::string::npos);
}
