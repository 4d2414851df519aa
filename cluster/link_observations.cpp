#include "cluster/link_observations.h"

namespace cs::cluster {

std::vector<LinkObservation> link_observations(const GlobalLinks& links) {
  std::vector<LinkObservation> out;
  out.reserve(links.size());
  for (const auto& l : links)
    out.push_back({l.op_key(), l.src_rank, l.dst_rank, l.transport.view(), l.size_mb, l.time_ms});
  return out;
}

}  // namespace cs::cluster
