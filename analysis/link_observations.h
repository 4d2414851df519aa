#pragma once
// Adapter: the merged global-rank links of cluster_communication_matrix.json (GlobalLink) as the
// slow-link analysis's LinkObservations. The links find_slow_links() ignores are left out here
// already (derived keys -top1/-middle/-bottomN and Total Op Info, LOCAL and self links): at
// 1,024 ranks they are most of the ~700k links, and the observations are held next to them.
//
//   auto links = merge_matrix_links(ranks, groups, diag);
//   auto slow = find_slow_links(link_observations(links));

#include <vector>

#include "analysis/slow_link.h"
#include "msprof_analyze/documents/cluster_matrix.h"

namespace cs::analysis {

std::vector<LinkObservation> link_observations(const documents::GlobalLinks& links);

}  // namespace cs::analysis
