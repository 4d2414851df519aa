// ParallelGroup (readers/parallel_group.h): the ranks of a group share one copy of its id, name and
// rank list; each keeps its own group_rank.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "readers/parallel_group.h"
#include "readers/profiler_info.h"

namespace cs::readers {
namespace {

TEST(ParallelGroup, RanksOfOneGroupShareItsShape) {
  const ParallelGroup a("10.0.0.1%eth0_60000_0_1", "dp", 0, {0, 8, 16, 24});
  const ParallelGroup b("10.0.0.1%eth0_60000_0_1", "dp", 3, {0, 8, 16, 24});
  EXPECT_EQ(a.group_rank(), 0);
  EXPECT_EQ(b.group_rank(), 3);
  EXPECT_EQ(b.global_ranks(), (std::vector<int>{0, 8, 16, 24}));
  // One copy: the same rank list and id in memory.
  EXPECT_EQ(a.global_ranks().data(), b.global_ranks().data());
  EXPECT_EQ(&a.group_id(), &b.group_id());
  EXPECT_FALSE(a == b);  // their own places differ
  EXPECT_TRUE(a == ParallelGroup("10.0.0.1%eth0_60000_0_1", "dp", 0, {0, 8, 16, 24}));
}

TEST(ParallelGroup, AnotherShapeUnderTheSameIdIsKeptApart) {
  const ParallelGroup a("g-shape", "tp", 0, {0, 1});
  const ParallelGroup b("g-shape", "tp", 0, {0, 1, 2});  // a damaged file may say otherwise
  const ParallelGroup c("g-shape", "pp", 0, {0, 1});
  EXPECT_EQ(a.global_ranks(), (std::vector<int>{0, 1}));
  EXPECT_EQ(b.global_ranks(), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(c.group_name(), "pp");
  EXPECT_NE(a.global_ranks().data(), b.global_ranks().data());
  EXPECT_FALSE(a == c);
}

TEST(ParallelGroup, EmptyGroupAndForgottenShapes) {
  const ParallelGroup none;
  EXPECT_EQ(none.group_id(), "");
  EXPECT_EQ(none.group_name(), "");
  EXPECT_EQ(none.group_rank(), -1);
  EXPECT_TRUE(none.global_ranks().empty());
  forget_unused_parallel_groups();
  const size_t before = cs::readers::remembered_parallel_groups();
  {
    const ParallelGroup gone("g-gone", "dp", 1, {4, 5});
    const ParallelGroup also_gone("g-gone-too", "tp", 0, {4});
    const ParallelGroup same_shape("g-gone", "dp", 0, {4, 5});
    EXPECT_EQ(cs::readers::remembered_parallel_groups(), before + 2);
  }
  // The pool forgets the shapes no group holds; one a group holds stays.
  const ParallelGroup kept("g-kept", "pp", 0, {4, 6});
  forget_unused_parallel_groups();
  EXPECT_EQ(cs::readers::remembered_parallel_groups(), before + 1);
  // Made again after every holder went: the same values.
  const ParallelGroup again("g-gone", "dp", 1, {4, 5});
  EXPECT_EQ(again.global_ranks(), (std::vector<int>{4, 5}));
  EXPECT_EQ(again.group_name(), "dp");
}

TEST(ParallelGroup, TwoRanksMetadataFilesShareTheirGroups) {
  auto metadata = [](int rank) {
    return R"({"parallel_group_info": {"10.1.1.1%eth0_60000_0_7": {"group_name": "dp", )"
           R"("group_rank": )" +
           std::to_string(rank) + R"(, "global_ranks": [0, 1]}}})";
  };
  ProfilerMetadata m0, m1;
  io::Diagnostics diag;
  ASSERT_TRUE(parse_profiler_metadata(metadata(0), "rank0/profiler_metadata.json", m0, diag));
  ASSERT_TRUE(parse_profiler_metadata(metadata(1), "rank1/profiler_metadata.json", m1, diag));
  ASSERT_EQ(m0.parallel_groups.size(), 1u);
  ASSERT_EQ(m1.parallel_groups.size(), 1u);
  EXPECT_EQ(m0.parallel_groups[0].group_rank(), 0);
  EXPECT_EQ(m1.parallel_groups[0].group_rank(), 1);
  EXPECT_EQ(m0.parallel_groups[0].global_ranks().data(),
            m1.parallel_groups[0].global_ranks().data());
  EXPECT_TRUE(diag.empty());
}

}  // namespace
}  // namespace cs::readers
