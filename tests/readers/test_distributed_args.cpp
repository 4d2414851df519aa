// distributed_args read like a map, the entries but "rank" shared between the ranks of a job
// (readers/distributed_args.h): what it reads must be the map it was given, and equal maps but
// "rank" must share one map.

#include "readers/distributed_args.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "readers/profiler_info.h"

namespace cs::readers {
namespace {

using Map = DistributedArgs::Map;

TEST(DistributedArgs, ReadsAsTheMapItWasGiven) {
  const Map m = {{"tensor_model_parallel_size", 8},
                 {"data_parallel_size", 16},
                 {"world_size", 1024},
                 {"rank", 77}};
  const DistributedArgs a = m;
  EXPECT_EQ(a.to_map(), m);
  EXPECT_EQ(static_cast<Map>(a), m);
  EXPECT_EQ(a.size(), 4u);
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a.get("world_size"), 1024);
  EXPECT_EQ(a.get("rank"), 77);
  EXPECT_EQ(a.at("data_parallel_size"), 16);
  EXPECT_EQ(a.get("pipeline_model_parallel_size"), std::nullopt);
  EXPECT_EQ(a.count("pipeline_model_parallel_size"), 0u);
  EXPECT_THROW((void)a.at("pipeline_model_parallel_size"), std::out_of_range);
  EXPECT_TRUE(DistributedArgs().empty());
  EXPECT_TRUE(DistributedArgs(Map{}).to_map().empty());
  const DistributedArgs only_rank = Map{{"rank", 0}};
  EXPECT_EQ(only_rank.size(), 1u);
  EXPECT_EQ(only_rank.to_map(), (Map{{"rank", 0}}));
}

TEST(DistributedArgs, SetAndEraseCopyTheSharedMap) {
  DistributedArgs a = Map{{"world_size", 16}, {"rank", 3}};
  const DistributedArgs b = Map{{"world_size", 16}, {"rank", 5}};
  a.set("tensor_model_parallel_size", 2);
  a.set("rank", 4);
  EXPECT_EQ(a.to_map(), (Map{{"world_size", 16}, {"tensor_model_parallel_size", 2}, {"rank", 4}}));
  EXPECT_EQ(b.to_map(), (Map{{"world_size", 16}, {"rank", 5}}));  // b's map is not changed
  a.erase("tensor_model_parallel_size");
  a.erase("rank");
  a.erase("absent");
  EXPECT_EQ(a.to_map(), (Map{{"world_size", 16}}));
  EXPECT_FALSE(a == b);
  a.set("rank", 5);
  EXPECT_TRUE(a == b);
}

// Two ranks' profiler_metadata.json with the same sizes: the same entries read back, each its
// own rank; a third with other sizes reads its own.
TEST(DistributedArgs, RanksOfAJobReadTheirOwnEntries) {
  auto read = [](int rank, int tp) {
    ProfilerMetadata m;
    io::Diagnostics diag;
    const std::string text = R"({"distributed_args": {"tensor_model_parallel_size": )" +
                             std::to_string(tp) + R"(, "sequence_parallel": true, "world_size": 16,
        "rank": )" + std::to_string(rank) +
                             "}}";
    EXPECT_TRUE(parse_profiler_metadata(text, "profiler_metadata.json", m, diag));
    return m;
  };
  const ProfilerMetadata a = read(3, 4), b = read(9, 4), c = read(9, 2);
  EXPECT_EQ(a.distributed_args.to_map(),
            (Map{{"tensor_model_parallel_size", 4}, {"world_size", 16}, {"rank", 3}}));
  EXPECT_EQ(b.arg("rank"), 9);
  EXPECT_EQ(b.arg("tensor_model_parallel_size"), 4);
  EXPECT_EQ(c.arg("tensor_model_parallel_size"), 2);
  EXPECT_EQ(c.arg("rank"), 9);
  EXPECT_FALSE(b.distributed_args == c.distributed_args);
}

}  // namespace
}  // namespace cs::readers
