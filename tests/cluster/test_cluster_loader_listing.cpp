// load_cluster with a listing of the job handed to it (LoadOptions::discovered, what a text job's
// `cluster` run passes on from db_all::job_has_db_export): the ranks it parses are the listing's,
// not a second walk's, and the listing's contents are taken, not copied.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cluster/cluster_loader.h"
#include "cluster/cluster_mode.h"
#include "load/discovery.h"
#include "runtime/progress.h"
#include "support/mpi_session.h"

namespace cs::cluster {
namespace {

LoadOptions options() {
  LoadOptions opts;
  opts.input_dir = std::string(CS_TEST_DATA) + "/text_level1";
  opts.parse = parse_options_for_mode(Mode::kAll, {});
  opts.threads = 2;
  opts.spill_communication = true;
  return opts;
}

std::vector<int> ranks_of(const LoadedCluster& loaded) {
  std::vector<int> out;
  for (const load::RankData& r : loaded.ranks) out.push_back(r.entry.rank);
  return out;
}

TEST(ClusterLoaderListing, WalksTheJobWithoutAListing) {
  runtime::PhaseLog log(false);
  const LoadedCluster loaded = load_cluster(test::one_process_session(), options(), log);
  ASSERT_FALSE(loaded.fatal) << loaded.fatal_message;
  EXPECT_EQ(ranks_of(loaded), (std::vector<int>{0, 1}));
}

// A listing without rank 0 (the job's directory still holds it): only rank 1 is parsed, so the
// job was not walked again; the listing handed over is left empty.
TEST(ClusterLoaderListing, ParsesTheRanksOfTheListingHandedOver) {
  LoadOptions opts = options();
  auto listing = std::make_shared<load::DiscoveryResult>(
      load::discover_ranks(opts.input_dir, load::DiscoveryOptions{}));
  ASSERT_EQ(listing->ranks.size(), 2u);
  ASSERT_EQ(listing->ranks[0].rank, 0);
  listing->ranks.erase(listing->ranks.begin());
  opts.discovered = listing;
  runtime::PhaseLog log(false);
  const LoadedCluster loaded = load_cluster(test::one_process_session(), opts, log);
  ASSERT_FALSE(loaded.fatal) << loaded.fatal_message;
  EXPECT_EQ(ranks_of(loaded), (std::vector<int>{1}));
  EXPECT_TRUE(listing->ranks.empty());
}

}  // namespace
}  // namespace cs::cluster
