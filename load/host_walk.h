#pragma once
// The ranks' host summaries walked one at a time (host/host_tables.h's SummaryWalk), whatever
// their state: held, packed or parked in the root's spill file (RankData::host, a RankHost). Each
// is read back into one scratch summary, reused rank after rank, so a walk holds one summary at a
// time.
//
//   const host::SummaryWalk walk = load::host_walk(ranks);
//   sink.put(host::free_breakdown_table(walk));  // reads every rank with has_host, in order

#include <vector>

#include "host/host_tables.h"
#include "load/rank_data.h"

namespace cs::load {

// The summaries of the ranks with has_host, in the order of `ranks` (which must outlive the walk),
// keyed by rank. Throws std::runtime_error when a parked summary cannot be read back.
host::SummaryWalk host_walk(const std::vector<RankData>& ranks);

}  // namespace cs::load
