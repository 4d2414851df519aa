#pragma once
// The device's Free time per step split by what the host was doing meanwhile. Each Free interval
// belongs to the step its start falls in (torch_npu's step_trace_time.csv counts it there); each
// part of it goes to the first cause, in Cause order (data, compile, sync, gc, dispatch), whose
// host ranges cover it; what no host range covers is unattributed. The causes and the
// unattributed part add up to the step's Free exactly as written by the producer.

#include <utility>
#include <vector>

#include "host/host_input.h"
#include "host/host_summary.h"

namespace cs::host {

// Per step (sorted by step; one row with step -1 when the input has no step ranges). Empty when
// the input has no Free intervals at all (has_free false).
std::vector<StepFree> free_breakdown(const HostInput& in);

// Without a host timeline: the producer's Free per step, all unattributed.
std::vector<StepFree> unattributed_free(const std::vector<std::pair<int64_t, double>>& step_free);

}  // namespace cs::host
