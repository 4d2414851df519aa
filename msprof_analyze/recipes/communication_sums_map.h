#pragma once
// cluster -m all's cluster_analysis.db runs communication_time_sum and communication_matrix_sum
// on the same ranks: both map steps from one opening of each rank's analysis.db, its
// CommAnalyzerTime read once (the groups and the time rows), then each recipe's own reduce
// (msprof_analyze/recipes/recipe_run.h run_recipes_jointly). The frames and messages are the ones
// each map step gives on its own, so the tables are the same as when the two recipes run one after
// the other.

#include <span>
#include <string>
#include <vector>

#include "io/diagnostics.h"
#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes {

// The two recipes, in the order their results are given and their reduces run.
inline const std::vector<std::string> kCommunicationSums = {"communication_time_sum",
                                                            "communication_matrix_sum"};

// One rank's map results: parts[0]/diag[0] communication_time_sum's, parts[1]/diag[1]
// communication_matrix_sum's (a recipe_run.h JointMap).
void map_communication_sums(const RankDbPaths& paths, std::span<RankPartial> parts,
                            std::span<io::Diagnostics> diag);

}  // namespace cs::recipes
