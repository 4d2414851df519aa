#pragma once
// The host side in the slow-rank diagnosis (host/ summaries of the ranks that have them):
//  - a slow rank (not for compute) whose DataLoader time per step stands above the other ranks'
//    median by at least 1 ms and half its Free excess is slow for data loading: cause "data"; a
//    rank not found otherwise whose DataLoader time stands 1 ms, 2% of its step and 5 robust sigmas
//    above the job's median is a slow rank with cause "data";
//  - a rank with cause "host" gets its Free broken down in the evidence (dispatch, data, sync,
//    compile, GC, unattributed, ms per step);
//  - a host-bound rank (host/host_findings.h: its device waits for dispatch far longer than the
//    job's) not found otherwise is a slow rank with cause "host", its score the dispatch time
//    per step above the job's median.

#include <vector>

#include "analysis/slow_rank.h"
#include "load/rank_data.h"

namespace cs::analysis {

void apply_host_side(std::vector<SlowRankFinding>& findings,
                     const std::vector<load::RankData>& ranks);

}  // namespace cs::analysis
