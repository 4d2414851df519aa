// cluster -m all runs communication_time_sum and communication_matrix_sum jointly
// (msprof_analyze/recipes/recipe_run.h run_recipes_jointly with
// msprof_analyze/recipes/communication_sums_map.h): each rank's analysis.db read once for both. The
// tables, messages and exit statuses are the ones of the two recipes run one after the other, also
// for ranks each recipe treats its own way: one whose CommAnalyzerTime lacks a column, one without
// analysis.db, one whose analysis.db is not a database.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "msprof_analyze/recipes/communication_sums_map.h"
#include "msprof_analyze/recipes/recipe_run.h"
#include "recipes/recipe_cli_test_util.h"
#include "recipes/recipe_test_util.h"
#include "support/test_data.h"
#include "support/test_files.h"

namespace fs = std::filesystem;

namespace {

using cs::test::exec_sql;
using cs::test::kDbJob;

fs::path analysis_db(const fs::path& job, int r) {
  return job / ("node_" + std::to_string(100 + r) + "_1736410538_ascend_pt") /
         "ASCEND_PROFILER_OUTPUT" / "analysis.db";
}

// Ranks 0-1 as recorded; rank 2: CommAnalyzerTime without group_name; rank 3: no analysis.db;
// rank 4: an analysis.db that is not a database; rank 5 as recorded.
fs::path damaged_job(const fs::path& dir) {
  const fs::path job = dir / "job";
  for (int r = 0; r < 6; ++r) cs::test::copy_real_db_rank(job, r);
  exec_sql(analysis_db(job, 2), "ALTER TABLE CommAnalyzerTime DROP COLUMN group_name");
  fs::remove(analysis_db(job, 3));
  cs::test::write_file(analysis_db(job, 4), "not a database\n");
  return job;
}

struct Result {
  std::vector<int> codes;
  std::string messages;  // stderr
  std::string dump;      // cluster_analysis.db, as recipe_test_util.h dumps it
};

cs::recipes::RecipeRunOptions options(const fs::path& job, const fs::path& out) {
  cs::recipes::RecipeRunOptions r;
  r.input_dir = job.string();
  r.output_dir = out.string();
  r.quiet = false;  // warnings too (stdout, naming OUT, is not compared)
  return r;
}

Result in_turn(const fs::path& job, const fs::path& out) {
  Result res;
  testing::internal::CaptureStderr();
  for (const auto& name : cs::recipes::kCommunicationSums) {
    auto r = options(job, out);
    r.recipe = name;
    res.codes.push_back(cs::recipes::run_recipe(cs::test::one_process_session(), r));
  }
  res.messages = testing::internal::GetCapturedStderr();
  res.dump = cs::test::dump_sqlite(out / "cluster_analysis_output" / "cluster_analysis.db");
  return res;
}

Result jointly(const fs::path& job, const fs::path& out) {
  Result res;
  testing::internal::CaptureStderr();
  res.codes = cs::recipes::run_recipes_jointly(cs::test::one_process_session(), options(job, out),
                                               cs::recipes::kCommunicationSums,
                                               cs::recipes::map_communication_sums);
  res.messages = testing::internal::GetCapturedStderr();
  res.dump = cs::test::dump_sqlite(out / "cluster_analysis_output" / "cluster_analysis.db");
  return res;
}

}  // namespace

TEST(RecipeJoint, SameTablesAsTheTwoRecipesInTurn) {
  const fs::path dir = cs::test::temp_dir("recipe-joint-same");
  const Result a = in_turn(kDbJob, dir / "in-turn");
  const Result b = jointly(kDbJob, dir / "jointly");
  EXPECT_EQ(a.codes, (std::vector<int>{0, 0}));
  EXPECT_EQ(b.codes, a.codes);
  ASSERT_NE(a.dump.find("ClusterCommunicationTime"), std::string::npos) << a.dump;
  ASSERT_NE(a.dump.find("ClusterCommunicationMatrix"), std::string::npos) << a.dump;
  EXPECT_EQ(b.dump, a.dump);
  EXPECT_EQ(b.messages, a.messages);
  fs::remove_all(dir);
}

TEST(RecipeJoint, DamagedRanksSaySoAsInTurn) {
  const fs::path dir = cs::test::temp_dir("recipe-joint-damaged");
  const fs::path job = damaged_job(dir);
  const Result a = in_turn(job, dir / "in-turn");
  const Result b = jointly(job, dir / "jointly");
  // Ranks were skipped: exit 3 for both recipes, and something said about each damaged rank.
  EXPECT_EQ(a.codes, (std::vector<int>{3, 3}));
  for (const char* rank_dir : {"node_102_", "node_103_", "node_104_"})
    EXPECT_NE(a.messages.find(rank_dir), std::string::npos) << rank_dir << "\n" << a.messages;
  EXPECT_EQ(b.codes, a.codes);
  EXPECT_EQ(b.messages, a.messages);
  EXPECT_EQ(b.dump, a.dump);
  fs::remove_all(dir);
}

TEST(RecipeJoint, UnknownRecipeIsRefused) {
  EXPECT_THROW(cs::recipes::run_recipes_jointly(cs::test::one_process_session(),
                                                options(kDbJob, "/nonexistent"),
                                                {"communication_time_sum", "no_such_recipe"},
                                                cs::recipes::map_communication_sums),
               std::invalid_argument);
}
