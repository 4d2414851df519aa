#pragma once
// What one rank directory holds, by the layout rules of its framework (formats.md §1): torch_npu
// and MindSpore keep their files in ASCEND_PROFILER_OUTPUT/, CANN msprof in analyze/ and
// mindstudio_profiler_output/ (and msprof_*.db in the directory itself); the rank id from
// profiler_info_{N}.json (or a PROF_ directory's info.json.{N}: load/msprof_rank.h); the text and
// DB export files present, and which export is read (--data-type). Internal to load/.

#include <string>
#include <utility>
#include <vector>

#include "load/discovery.h"

namespace cs::load {

// Every found rank directory (path, name) inspected, in order, on up to opts.threads threads.
std::vector<RankEntry> inspect_rank_dirs(
    const std::vector<std::pair<std::string, std::string>>& dirs, const DiscoveryOptions& opts);

}  // namespace cs::load
