// Groups named from their rank sets: a Megatron-style layout (rank = stage * tp * dp + dp_index *
// tp
// + tp_index) built here from that formula, not from the naming code, and checked group by group.
#include "report/cluster_page/group_names.h"

#include <gtest/gtest.h>

#include <string>

using namespace cs::report;

namespace {

// Groups of a tp x dp x pp job in Megatron's order, hashed as "tpI", "dpS_I", "ppI".
std::map<std::string, std::vector<long long>> megatron(int tp, int dp, int pp) {
  std::map<std::string, std::vector<long long>> g;
  const int stage = tp * dp;
  for (int s = 0; s < pp; ++s)
    for (int d = 0; d < dp; ++d)
      for (int t = 0; t < tp; ++t) {
        const long long r = s * stage + d * tp + t;
        g["tp" + std::to_string(r / tp)].push_back(r);
        g["dp" + std::to_string(s) + "_" + std::to_string(t)].push_back(r);
        g["pp" + std::to_string(r % stage)].push_back(r);
      }
  if (pp == 1)
    for (int i = 0; i < stage; ++i) g.erase("pp" + std::to_string(i));
  if (tp == 1)
    for (int i = 0; i < stage * pp; ++i) g.erase("tp" + std::to_string(i));
  return g;
}

}  // namespace

TEST(GroupNames, MegatronTp4Dp8Pp2) {
  const GroupNaming n = name_groups(megatron(4, 8, 2));
  EXPECT_EQ(n.stage_size, 32);
  EXPECT_EQ(n.name("tp6"), "tp 6 (ranks 24-27)");
  EXPECT_EQ(n.name("tp15"), "tp 15 (ranks 60-63)");
  EXPECT_EQ(n.name("dp1_0"), "dp 0 of stage 1 (ranks 32,36,40,\u2026,60)");
  EXPECT_EQ(n.name("dp0_3"), "dp 3 of stage 0 (ranks 3,7,11,\u2026,31)");
  EXPECT_EQ(n.name("pp13"), "pp 13 (ranks 13,45)");
  EXPECT_EQ(n.name("unknown"), "unknown");
  // Coordinates: rank 45 = stage 1, dp index 3, tp index 1.
  for (long long r = 0; r < 64; ++r) {
    const RankCoords& c = n.coords.at(r);
    EXPECT_EQ(c.stage, r / 32) << r;
    EXPECT_EQ(c.tp, r % 4) << r;
    EXPECT_EQ(c.dp, (r % 32) / 4) << r;
    EXPECT_EQ(n.of_rank.at(r).size(), 3u) << r;
  }
}

TEST(GroupNames, DataParallelOnly) {
  const GroupNaming n = name_groups(megatron(1, 16, 1));
  EXPECT_EQ(n.name("dp0_0"), "dp 0 (ranks 0-15)");
  EXPECT_EQ(n.coords.at(9).dp, 9);
  EXPECT_EQ(n.coords.at(9).tp, -1);
}

TEST(GroupNames, TensorAndDataNoPipeline) {
  const GroupNaming n = name_groups(megatron(8, 4, 1));
  EXPECT_EQ(n.name("tp3"), "tp 3 (ranks 24-31)");
  EXPECT_EQ(n.name("dp0_2"), "dp 2 (ranks 2,10,18,26)");
}

TEST(GroupNames, UnevenSetIsNamedBySize) {
  const GroupNaming n = name_groups({{"a", {0, 1, 2, 3, 4, 5, 6, 7}}, {"b", {0, 1, 5}}});
  EXPECT_EQ(n.name("b"), "group of 3 ranks (ranks 0,1,5)");
}

TEST(GroupNames, RankRange) {
  EXPECT_EQ(rank_range({24, 25, 26, 27}), "24-27");
  EXPECT_EQ(rank_range({7}), "7");
  EXPECT_EQ(rank_range({0, 4, 8, 12, 16}), "0,4,8,\u2026,16");
  EXPECT_EQ(rank_range({}), "");
}

TEST(GroupNames, SmallDataParallelInsideStages) {
  const GroupNaming n = name_groups(megatron(4, 2, 2));
  EXPECT_EQ(n.stage_size, 8);
  EXPECT_EQ(n.name("dp1_3"), "dp 3 of stage 1 (ranks 11,15)");
  EXPECT_EQ(n.coords.at(13).stage, 1);
}
