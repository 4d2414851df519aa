// A recipe run handed the rank directories already discovered (RecipeRunOptions::discovered, as
// cluster -m all hands its discovery to the two communication recipes) reads exactly those and
// does not walk the input directory again; the result is the one of a run that discovers.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "load/discovery.h"
#include "msprof_analyze/recipes/recipe_run.h"
#include "recipes/recipe_test_util.h"
#include "support/test_data.h"

namespace fs = std::filesystem;

namespace {

using cs::test::kDbJob;

// communication_time_sum over `input` into a fresh OUT; the exit status and OUT's database dump.
std::pair<int, std::string> run_discovered(const std::string& name, const std::string& input,
                                           const cs::load::DiscoveryResult* discovered) {
  const fs::path out = cs::test::temp_dir("recipe-discovered-" + name);
  cs::recipes::RecipeRunOptions r;
  r.recipe = "communication_time_sum";
  r.input_dir = input;
  r.output_dir = out.string();
  r.quiet = true;
  r.discovered = discovered;
  const int code = cs::recipes::run_recipe(cs::test::one_process_session(), r);
  const std::string dump =
      cs::test::dump_sqlite(out / "cluster_analysis_output" / "cluster_analysis.db");
  fs::remove_all(out);
  return {code, dump};
}

}  // namespace

TEST(RecipeDiscovered, HandedRanksAreReadWithoutWalkingTheInputAgain) {
  const cs::load::DiscoveryResult found = cs::load::discover_ranks(kDbJob);
  ASSERT_EQ(found.ranks.size(), 2u);
  const auto walked = run_discovered("walked", kDbJob, nullptr);
  ASSERT_EQ(walked.first, 0);
  ASSERT_NE(walked.second.find("ClusterCommunicationTime"), std::string::npos);
  // An input directory that does not exist: only the handed discovery can find the ranks.
  const auto handed = run_discovered("handed", kDbJob + "/no-such-directory", &found);
  EXPECT_EQ(handed.first, 0);
  EXPECT_EQ(handed.second, walked.second);
}

TEST(RecipeDiscovered, OnlyTheHandedRanksAreRead) {
  cs::load::DiscoveryResult one = cs::load::discover_ranks(kDbJob);
  ASSERT_EQ(one.ranks.size(), 2u);
  one.ranks.pop_back();
  const auto both = run_discovered("both", kDbJob, nullptr);
  const auto first = run_discovered("first", kDbJob, &one);
  EXPECT_NE(first.first, 1);
  EXPECT_NE(first.second.find("ClusterCommunicationTime"), std::string::npos);
  EXPECT_NE(first.second, both.second) << "the second rank's rows should be missing";
}
