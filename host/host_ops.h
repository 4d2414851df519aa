#pragma once
// Per operator name on one rank: calls, host self / total time, device self time (the device
// tasks the operator itself launched) and the launch delays of those tasks. The host self time
// is the operator's time minus its child operators' time on the same thread; a device task
// belongs to the innermost operator enclosing the point its launch was issued from. These are
// the definitions torch_npu's operator_details.csv uses (checked against it in tests/host).

#include <vector>

#include "host/host_input.h"
#include "host/host_summary.h"

namespace cs::host {

// Operators of `in` summed by name, sorted by name.
std::vector<OpStats> operator_stats(const HostInput& in);

}  // namespace cs::host
