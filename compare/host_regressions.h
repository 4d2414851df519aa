#pragma once
// Run vs run on the host side (docs/host.md): the device's Free time per step and its host causes
// (dispatch, data loading, run-time compilation) per rank, from each rank's host summary. Unlike
// Free as a whole (an effect of someone else being slow, rank_diff.csv), these parts are the
// rank's own host: a rank whose dispatch or data time stands out from the others' change is a
// candidate "dispatch"/"data"/"compile" with key "rank R"; every rank moving together (a slower
// host everywhere) is the candidate with key "all ranks", Free's own shift included ("free").

#include <vector>

#include "compare/run_diff.h"

namespace cs::compare {

// Appends the host candidates (significant ones only) to `out`.
void host_candidates(const std::vector<load::RankData>& base,
                     const std::vector<load::RankData>& comparison, const NoiseOptions& opt,
                     std::vector<Regression>& out);

}  // namespace cs::compare
