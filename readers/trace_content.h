#pragma once
// What a parsed timeline holds, in one sentence for the user: device kernels, or only CPU-side
// events (a CPU-only trace), or device work in categories clusterscope does not read as kernels
// (Meta MTIA's mtia_ccp_events). Commands say this instead of showing an all-zero device side.
//
//   const TraceContent c = trace_content(trace);
//   if (c.device_kernels == 0) diag.error(path, 0, c.summary, ...);

#include <cstdint>
#include <string>

#include "readers/kineto_trace.h"

namespace cs::readers {

struct TraceContent {
  uint64_t device_kernels = 0;    // kernel, memcpy, memset, communication events
  uint64_t cpu_ops = 0;           // framework ops (cpu_op / Operator)
  uint64_t other_device = 0;      // events of device categories not read as kernels (MTIA)
  std::string other_device_cats;  // those categories, e.g. "mtia_ccp_events"
  std::string summary;            // e.g. "CPU-only trace: 10346 framework ops, no device kernels"
  std::string hint;               // what to do when there are no device kernels
};

// Counts what `t` holds and writes the summary.
// Example: HTA's cpu_only rank-34 trace -> device_kernels 0, summary "CPU-only trace: ...".
TraceContent trace_content(const Trace& t);

}  // namespace cs::readers
