#pragma once
// The device's Free intervals when the export does not write them (a DB without
// OVERLAP_ANALYSIS): per step, the gaps in the union of the device's busy intervals (compute
// tasks and collectives) between the step's first and last busy instant, as torch_npu computes
// Free (the time before the first is Preparing). Checked against analysis.db StepTraceTime.free
// on the real DB sample (tests/host).

#include <cstdint>
#include <utility>
#include <vector>

#include "host/host_input.h"

namespace cs::host {

// `busy` as [start_ns, end_ns) pairs, any order; `steps` may be empty (then one whole range).
std::vector<FreeSpan> free_from_busy(std::vector<std::pair<int64_t, int64_t>> busy,
                                     const std::vector<StepRange>& steps);

}  // namespace cs::host
