// The reduce of communication_time_sum and communication_matrix_sum takes the ranks' frames
// (Recipe::merge): each rank's rows are freed as they are concatenated instead of being copied
// beside them. The tables are the ones the merge of copied frames writes, and the parts keep
// their rank and `used` for the run's counts.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "frame/frame_ops.h"
#include "msprof_analyze/recipes/communication_matrix_sum/communication_matrix_sum.h"
#include "msprof_analyze/recipes/communication_time_sum/communication_time_sum.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"
#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;
namespace cm = cs::recipes::communication_matrix_sum;
namespace ct = cs::recipes::communication_time_sum;

namespace {

// The real job's two ranks mapped by `recipe`, repeated as ranks 0-3.
std::vector<cs::recipes::RankPartial> mapped_as_four_ranks(const cs::recipes::Recipe& recipe) {
  return cs::test::map_real_db_ranks(recipe, 4);
}

// Every cell of a frame, column by column, as text.
std::string cell_text(const cs::frame::Frame& f) {
  std::string s;
  for (const auto& c : f.columns) {
    s += c.name + ":";
    for (const auto& cell : c.cells) s += cs::frame::cell_key(cell) + ",";
    s += "\n";
  }
  return s;
}

}  // namespace

TEST(CommunicationSumsMerge, MatrixFromTakenFramesIsTheMatrixFromCopies) {
  const auto parts = mapped_as_four_ranks(cm::CommunicationMatrixSum());
  const std::vector<const cs::frame::Frame*> frames = cs::recipes::used_frames(parts, "matrix");
  ASSERT_EQ(frames.size(), 4u);
  const cs::frame::Frame copied = cm::merge_communication_matrix(frames, {0, 1, 2, 3});
  ASSERT_GT(copied.rows(), 0u);

  auto taken_parts = parts;
  std::vector<int> ranks;
  std::vector<cs::frame::Frame> taken =
      cs::recipes::take_used_frames(taken_parts, "matrix", true, &ranks);
  EXPECT_EQ(ranks, (std::vector<int>{0, 1, 2, 3}));
  for (const auto& p : taken_parts) {
    EXPECT_TRUE(p.used);
    EXPECT_FALSE(p.frames.contains("matrix")) << p.rank;
  }
  const cs::frame::Frame moved = cm::merge_communication_matrix(std::move(taken), ranks);
  EXPECT_EQ(cell_text(moved), cell_text(copied));
}

TEST(CommunicationSumsMerge, TakingMergeWritesTheTablesOfTheCopyingReduce) {
  std::vector<std::unique_ptr<cs::recipes::Recipe>> recipes;
  recipes.push_back(std::make_unique<ct::CommunicationTimeSum>());
  recipes.push_back(std::make_unique<cm::CommunicationMatrixSum>());
  for (const auto& recipe : recipes) {
    const fs::path dir = cs::test::temp_dir("sums-merge-" + recipe->name());
    auto parts = mapped_as_four_ranks(*recipe);
    cs::recipes::RecipeOutput reduce_out;
    reduce_out.cluster_output_dir = (dir / "reduce").string();
    fs::create_directories(reduce_out.cluster_output_dir);
    cs::io::Diagnostics diag;
    ASSERT_TRUE(recipe->reduce(parts, reduce_out, diag)) << recipe->name();  // copies the frames
    ASSERT_FALSE(parts[0].frames.empty());

    cs::recipes::RecipeOutput merge_out = reduce_out;
    merge_out.cluster_output_dir = (dir / "merge").string();
    fs::create_directories(merge_out.cluster_output_dir);
    const cs::recipes::Recipe::WriteStep write = recipe->merge(parts, 1, diag);
    ASSERT_TRUE(write);
    for (const auto& p : parts) {  // the rows were taken; the rank and `used` stay
      EXPECT_TRUE(p.used);
      for (const char* key : {"time", "bandwidth", "matrix"})
        EXPECT_FALSE(p.frames.contains(key)) << recipe->name() << " " << key;
    }
    ASSERT_TRUE(write(merge_out, diag)) << recipe->name();
    EXPECT_FALSE(diag.has_errors());
    const std::string a =
        cs::test::dump_sqlite(fs::path(reduce_out.cluster_output_dir) / "cluster_analysis.db");
    const std::string b =
        cs::test::dump_sqlite(fs::path(merge_out.cluster_output_dir) / "cluster_analysis.db");
    EXPECT_NE(a.find("ClusterCommunication"), std::string::npos) << a.substr(0, 500);
    EXPECT_EQ(b, a) << recipe->name();
    fs::remove_all(dir);
  }
}
