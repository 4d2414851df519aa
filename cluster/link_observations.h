#pragma once
// Adapter: the merged global-rank links of cluster_communication_matrix.json (GlobalLink) as the
// slow-link analysis's LinkObservations. Every link is kept; find_slow_links() itself ignores the
// derived keys (-top1/-middle/-bottomN, Total Op Info), LOCAL and self links.
//
//   auto links = merge_matrix_links(ranks, groups, diag);
//   auto slow = find_slow_links(link_observations(links));

#include <vector>

#include "cluster/cluster_matrix.h"
#include "cluster/slow_link.h"

namespace cs::cluster {

std::vector<LinkObservation> link_observations(const GlobalLinks& links);

}  // namespace cs::cluster
