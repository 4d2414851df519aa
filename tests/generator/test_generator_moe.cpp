// generate --ep: expert-parallel groups (Megatron's layout, worked out by hand), the option's
// validation, and the GroupedMatmul kernels: the same calls with the same routed tokens in
// kernel_details.csv and in the DB (TASK/COMPUTE_TASK_INFO), and none without --ep.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <map>
#include <string>
#include <vector>

#include "generator/generator.h"
#include "generator/job/topology.h"
#include "generator/job/write_moe.h"
#include "load/discovery.h"
#include "readers/kernel_details.h"
#include "support/test_files.h"

using namespace cs::generator;

namespace {

GeneratorOptions moe(int ep) {
  GeneratorOptions o;
  o.ranks = 16;
  o.tp = 2;
  o.pp = 2;
  o.steps = 1;
  o.seed = 7;
  o.ep = ep;
  o.export_type = ExportKind::kBoth;
  return o;
}

// The first input dimension of every GroupedMatmul in kernel_details.csv, in file order.
std::vector<std::string> csv_shapes(const std::string& rank_dir) {
  std::vector<std::string> out;
  cs::io::Diagnostics d;
  EXPECT_TRUE(cs::readers::read_kernel_details_csv(
      rank_dir + "/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
      [&](const cs::readers::KernelRecord& k) {
        if (k.type == "GroupedMatmul") out.emplace_back(k.input_shapes);
      },
      d));
  return out;
}

std::vector<std::string> db_shapes(const std::string& rank_dir, int rank) {
  std::vector<std::string> out;
  sqlite3* db = nullptr;
  const std::string path =
      rank_dir + "/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_" + std::to_string(rank) + ".db";
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db,
                               "SELECT s.value FROM COMPUTE_TASK_INFO c JOIN TASK t USING "
                               "(globalTaskId) JOIN STRING_IDS s ON s.id = c.inputShapes WHERE "
                               "c.opType = (SELECT id FROM STRING_IDS WHERE value = "
                               "'GroupedMatmul') ORDER BY t.startNs",
                               -1, &st, nullptr),
            SQLITE_OK);
  while (sqlite3_step(st) == SQLITE_ROW) {
    std::string v = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    out.push_back(v.substr(1, v.size() - 2));  // the DB keeps the CSV cell's quotes
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

TEST(GeneratorMoe, ExpertGroupsFollowMegatron) {
  const GeneratorOptions o = moe(2);
  const Topology t = build_topology(16, 2, 2, o.seed);
  // rank = tp index + tp * (dp index + dp * stage); groups of 2 consecutive dp indexes.
  EXPECT_EQ(expert_group_ranks(o, t, 0), (std::vector<int>{0, 2}));
  EXPECT_EQ(expert_group_ranks(o, t, 5), (std::vector<int>{5, 7}));   // t 1, d 2, stage 0
  EXPECT_EQ(expert_group_ranks(o, t, 9), (std::vector<int>{9, 11}));  // t 1, d 0, stage 1
  EXPECT_EQ(expert_group_ranks(moe(4), t, 14), (std::vector<int>{8, 10, 12, 14}));
  EXPECT_TRUE(expert_group_ranks(moe(1), t, 0).empty());
}

TEST(GeneratorMoe, EpMustDivideDataParallelSize) {
  cs::io::Diagnostics diag;
  EXPECT_FALSE(validate_options(moe(3), diag));
  EXPECT_NE(diag.items().back().what.find("--ep 3"), std::string::npos);
}

TEST(GeneratorMoe, GroupedMatmulAgreesInBothExports) {
  cs::test::TempDir dir;
  cs::io::Diagnostics diag;
  ASSERT_TRUE(generate_cluster(dir.str(), moe(2), diag));
  const auto ranks = cs::load::discover_ranks(dir.str()).ranks;
  ASSERT_EQ(ranks.size(), 16u);
  for (const auto& e : ranks) {
    const auto csv = csv_shapes(e.path);
    EXPECT_EQ(csv, db_shapes(e.path, e.rank)) << e.rank;
    ASSERT_FALSE(csv.empty());
    // "T,in;E,in,out;E" with the rank's 16 / 2 = 8 experts.
    EXPECT_NE(csv.front().find(";8,"), std::string::npos) << csv.front();
  }
  cs::test::TempDir dense;
  ASSERT_TRUE(generate_cluster(dense.str(), moe(1), diag));
  for (const auto& e : cs::load::discover_ranks(dense.str()).ranks)
    EXPECT_TRUE(csv_shapes(e.path).empty()) << e.rank;
}

}  // namespace
