#pragma once
// The host input of a PyTorch Kineto trace (readers/kineto_trace.h): cpu_op operators
// (ProfilerStep#N ranges, cpu_op or user_annotation, are the steps), the device work each
// operator launched (kernels, memcpy and memset linked by args "correlation" to their
// cuda_runtime / cuda_driver launch call, whose start is both where it was issued and launched),
// host ranges by cause by name, and the device's Free per step as the gaps of its busy time
// (host/device_free.h: Kineto writes no Free of its own).

#include "host/host_input.h"
#include "readers/kineto_trace.h"

namespace cs::host {

// Fills `out` from a Kineto trace. False when it has no cpu_op operators.
bool host_input_from_kineto(const readers::Trace& t, HostInput& out);

}  // namespace cs::host
