// host_walk: the ranks' host summaries read back one at a time (host_walk.h).

#include "load/host_walk.h"

namespace cs::load {

host::SummaryWalk host_walk(const std::vector<RankData>& ranks) {
  return [&ranks](const host::SummaryVisit& visit) {
    host::HostSummary scratch;  // filled only by a rank that is packed or spilled
    for (const RankData& d : ranks) {
      if (!d.has_host) continue;
      visit(d.rank(), d.host.read(scratch));
    }
  };
}

}  // namespace cs::load
