#pragma once
// msprof-analyze's diagnostic recipes beside clusterscope's own findings (the
// "recipe_agreement" table and a few summary lines). On a job with a DB export, `cluster -m all`
// also runs the recipes slow_rank, slow_link and freq_analysis (msprof_analyze/db_all/
// recipe_verdicts) and hands their verdicts here; each rank or link either side names becomes a
// row saying what each side says, whether they agree, and why they can differ: the recipes count
// statistical outliers (an instance's op duration, a transmit time, a clock reading), while
// clusterscope's findings measure impact (the wait a rank costs its peers per step, a link's
// bandwidth against its transport and its peers). Neither replaces the other.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/slow_link.h"
#include "analysis/slow_rank.h"
#include "io/table.h"

namespace cs::analysis {

// What the three recipes wrote, as plain rows (their tables in cluster_analysis.db).
struct RecipeVerdicts {
  bool ran = false;  // the job has a DB export and the recipes were run
  // slow_rank's SlowRank: rank -> instances it was voted the one the others waited for.
  std::vector<std::pair<int, int64_t>> slow_rank_votes;
  // freq_analysis: ranks whose AI Core clock dropped while idle, and ranks with an abnormal clock,
  // each with its list of frequencies as the recipe writes it ("[800, 1800]").
  bool freq_ran = false;  // the ranks had AICORE_FREQ data
  std::vector<std::pair<int, std::string>> idle_frequency, abnormal_frequency;
  // slow_link's SlowLinkSum, in its order (top N by offset ratio).
  struct Link {
    std::string group;  // opType_relatedRanks_dataSize
    double offset_ratio = 0;
    int slowest_rank = -1, fastest_rank = -1;
  };
  std::vector<Link> slow_links;
};

// The comparison as a table: recipe, subject ("rank 5", a slow_link group), msprof_analyze,
// clusterscope, agree ("yes"/"no"), why. slow_rank rows: every voted rank (most votes first, at
// most `max_voted`) and every rank clusterscope finds slow; freq_analysis rows: every rank it
// names; slow_link rows: every group it keeps, then each clusterscope slow link no group names.
io::Table recipe_agreement_table(const RecipeVerdicts& v,
                                 const std::vector<SlowRankFinding>& slow_ranks,
                                 const std::vector<SlowLinkFinding>& slow_links,
                                 size_t max_voted = 10);

// One line per recipe for the closing summary, e.g.
//   "msprof-analyze slow_rank: most votes for rank 5 (67); clusterscope also finds it slow."
// Empty when the recipes were not run.
std::string recipe_agreement_summary(const RecipeVerdicts& v,
                                     const std::vector<SlowRankFinding>& slow_ranks,
                                     const std::vector<SlowLinkFinding>& slow_links);

}  // namespace cs::analysis
