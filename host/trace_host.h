#pragma once
// The host input of a rank from its NPU trace_view.json (torch_npu's text export), already
// parsed by readers/trace_view: torch operators (cpu_op; ProfilerStep#N gives the steps), the
// device tasks each operator launched (flows "async_npu" from the operator to the task), the
// runtime call that launched each task (flows "HostToDevice" from the CANN call), host ranges
// by cause (DataLoader, aclopCompileAndExecute, synchronise, GC) and the Overlap Analysis Free
// intervals. See docs/formats.md (host side).

#include "host/host_input.h"
#include "readers/kineto_trace.h"

namespace cs::host {

// Fills `out` from a trace_view trace. Returns false when the trace has no host operators at
// all (then there is no host timeline to explain Free with).
bool host_input_from_trace(const readers::Trace& t, HostInput& out);

}  // namespace cs::host
