// The verdict recipes of `cluster -m all` (msprof_analyze/db_all/recipe_verdicts.h) take the
// root's listing of the job that job_has_db_export made (ClusterDbOptions::discovered) instead of
// walking the job again. A listing that leaves a rank out tells the two apart: freq_analysis then
// names only the listed rank whose clock changed.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>
#include <string>

#include "load/discovery.h"
#include "msprof_analyze/db_all/cluster_db_all.h"
#include "msprof_analyze/db_all/recipe_verdicts.h"
#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;

namespace {

// An 8-rank DB job whose ranks 3 and 6 run at another AI Core clock.
const fs::path& job() {
  static const fs::path j = [] {
    const fs::path p = cs::test::temp_dir("verdicts-listing") / "job";
    EXPECT_EQ(cs::test::run_command(std::string(CS_BINARY) + " generate " + p.string() +
                                    " --ranks 8 --tp 4 --pp 2 --steps 2 --export-type db "
                                    "--slow-freq 3:800 --slow-freq 6:1200"),
              0);
    return p;
  }();
  return j;
}

// The ranks freq_analysis names (idle or abnormal clock) with `listing` handed over.
std::set<int> freq_ranks(std::shared_ptr<cs::load::DiscoveryResult> listing) {
  cs::db_all::ClusterDbOptions opts;
  opts.input_dir = job().string();
  const fs::path out = cs::test::temp_dir("verdicts-listing-out");
  opts.output_dir = out.string();
  opts.quiet = true;
  opts.discovered = std::move(listing);
  const cs::analysis::RecipeVerdicts v =
      cs::db_all::run_verdict_recipes(cs::test::one_process_session(), opts);
  EXPECT_TRUE(v.ran);
  // The listing is released once the ranks are read: not held through the reduces or after.
  EXPECT_EQ(opts.discovered, nullptr);
  std::set<int> ranks;
  for (const auto& [rank, mhz] : v.idle_frequency) ranks.insert(rank);
  for (const auto& [rank, mhz] : v.abnormal_frequency) ranks.insert(rank);
  fs::remove_all(out);
  return ranks;
}

}  // namespace

TEST(RecipeVerdictsListing, TheHandedListingIsTheOneRead) {
  ASSERT_TRUE(fs::exists(job() / "truth.json"));
  // No listing: the job walked, both ranks named.
  EXPECT_EQ(freq_ranks(nullptr), (std::set<int>{3, 6}));
  // The whole job's listing: the same.
  EXPECT_EQ(freq_ranks(std::make_shared<cs::load::DiscoveryResult>(
                cs::load::discover_ranks(job().string()))),
            (std::set<int>{3, 6}));
  // A listing without rank 3 (as if the job had not held it): only rank 6.
  cs::load::DiscoveryOptions without3;
  without3.rank_filter = std::set<int>{0, 1, 2, 4, 5, 6, 7};
  auto partial = std::make_shared<cs::load::DiscoveryResult>(
      cs::load::discover_ranks(job().string(), without3));
  ASSERT_EQ(partial->ranks.size(), 7u);
  EXPECT_EQ(freq_ranks(partial), (std::set<int>{6}));
}
