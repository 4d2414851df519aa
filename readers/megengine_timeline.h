#pragma once
// MegEngine's dynamic-graph timeline, `*.chrome_timeline.json` (megengine.utils.profiler with
// the chrome_timeline format; formats.md §11): {"traceEvents": [...], "metadata":
// {"localTime": "..."}} with begin/end (B/E) pairs instead of complete events. Host threads
// (named by thread_name metadata: the Python "channel", the "worker" that executes ops) carry
// OpDispatch and the op executions (B/E named by the op, E args the op's details "__id__",
// "__name__", "__device__"); each device ("gpu0:0", "cpu0:0", ...) has a thread whose "Kernel"
// B/E pairs span the op's work on the device, and HostToDevice copies. With CUPTI on, the
// kernels themselves (args "execution_time") and Memcpy/Memset (args "bytes") appear on stream
// threads; then they are the device work and the per-op device spans only annotate it.
// Flows (s/t/f, categories OpDispatch, KernelLaunch, TensorLink, KernelLink) tie them. A CUPTI
// kernel's KernelLink flow ends at the kernel's end; the reader moves that end to the kernel's
// start, where compare and top look for the flow from the launching op.
//
// The reader pairs B with E per thread into complete events of an io::Trace, so `top`,
// `compare` and `merge` read it as any other timeline: device work is kKernel / kMemcpy /
// kMemset, op
// executions on host threads kCpuOp. A collective op's device span is a kernel too (so `top`
// lists it); `compare` counts it as communication by its name (is_megengine_collective).
//
//   io::Trace t; io::Diagnostics diag;
//   if (read_megengine_timeline("run.chrome_timeline.json", t, diag)) ...

#include <string>

#include <simdjson.h>

#include "io/diagnostics.h"
#include "readers/kineto_trace.h"

namespace cs::readers {

// Reads a chrome_timeline.json (.json or .json.gz) into `out`. False with an error when it is
// not one; a begin without its end is left out with one warning giving the count.
bool read_megengine_timeline(const std::string& path, Trace& out, io::Diagnostics& diag);
// Same, from JSON text in memory; `source` names it in diagnostics.
bool parse_megengine_timeline(const simdjson::padded_string& json, const std::string& source,
                              Trace& out, io::Diagnostics& diag);

// True for a MegEngine device name as its timeline names device threads: "gpu0:0", "cpu0:0",
// "xpux:0", "atlas1:2", "rocm0:0", "cambricon0:0", "multithread2:0".
bool is_megengine_device_name(std::string_view name);

// True for MegEngine's communication ops: CollectiveComm, RemoteSend, RemoteRecv.
bool is_megengine_collective(std::string_view op);

}  // namespace cs::readers
