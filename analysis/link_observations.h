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
#include "io/string_pool.h"
#include "msprof_analyze/documents/cluster_matrix.h"

namespace cs::analysis {

// The observations of `links`, viewing their op keys (keep `links` while they are used).
std::vector<LinkObservation> link_observations(const documents::GlobalLinks& links);

// The observations of merged links that come a batch at a time (merge_cluster_matrix) and are
// let go after each: the op keys are copied, once each, into the set.
//
//   LinkObservationSet obs;  // merge_cluster_matrix(..., [&](GlobalLinks&& b) { obs.add(b); })
//   auto slow = find_slow_links(obs.observations());
class LinkObservationSet {
 public:
  // Appends the observations of one batch's links.
  void add(const documents::GlobalLinks& batch);
  const std::vector<LinkObservation>& observations() const { return obs_; }

 private:
  io::StringPool keys_;  // the op keys the observations view
  std::vector<LinkObservation> obs_;
};

}  // namespace cs::analysis
