#pragma once
// What the host analyses read from one rank, whichever export it came from: the framework's
// operators (torch cpu_op ranges), the device tasks each operator launched (with the time the
// launch was issued), the host ranges that explain idle device time (DataLoader, synchronise,
// compile, GC, any launch activity), the device's Free intervals and the step ranges. Filled by
// host/trace_host (trace_view.json, Kineto) and host/db_host (ascend_pytorch_profiler_N.db).
// Times are integer nanoseconds; durations the producer wrote in µs are kept as written
// (`free_us`) so that sums reproduce the producer's own figures.

#include <cstdint>
#include <string>
#include <vector>

namespace cs::host {

// One framework operator on one host thread (ProfilerStep#N ranges are steps, not operators).
struct HostOp {
  uint32_t name = 0;  // index into HostInput::names
  int64_t tid = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  double dur_us = 0;  // as the producer wrote it
};

// One device task an operator launched: where the launch was issued on the host (thread, time),
// when the task ran and for how long (µs as written).
struct DeviceLaunch {
  int64_t op = -1;        // index into HostInput::ops when the export names the operator
  int64_t tid = 0;        // host thread that issued it (the operator's thread)
  int64_t issue_ns = 0;   // inside the launching operator: the flow's start
  int64_t launch_ns = 0;  // the runtime call's start (CANN launch), else issue_ns
  int64_t device_start_ns = 0;
  double device_us = 0;
};

// Why the device may be idle while the host does this. Order = precedence when ranges overlap.
enum class Cause : uint8_t { kData, kCompile, kSync, kGc, kDispatch, kCount };

// A host range of one cause.
struct CauseSpan {
  Cause cause = Cause::kDispatch;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// A device Free interval (Overlap Analysis "Free", OVERLAP_ANALYSIS type Free).
struct FreeSpan {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  double dur_us = 0;  // as written
};

struct StepRange {
  int64_t step = -1;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

struct HostInput {
  std::vector<std::string> names;  // operator names, interned
  std::vector<HostOp> ops;
  std::vector<DeviceLaunch> launches;
  std::vector<CauseSpan> causes;
  std::vector<FreeSpan> free;
  std::vector<StepRange> steps;
  bool has_free = false;  // the export has the device's Free intervals at all
};

// "data", "compile", "sync", "gc", "dispatch".
const char* cause_name(Cause c);

// The cause of a host range by its name, or kCount when the name says nothing particular.
// DataLoader ranges ("enumerate(DataLoader)#..."), compile (aclopCompileAndExecute, opCompile),
// synchronisation (aclrtSynchronize*, a blocking aclrtMemcpy, aten::_local_scalar_dense from
// .item()), garbage collection ("GC", gc.collect). `name` may carry the "AscendCL@" prefix.
Cause cause_of_name(std::string_view name);

}  // namespace cs::host
