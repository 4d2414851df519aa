#pragma once
// One side of a comparison, built from a timeline (Kineto trace or NPU trace_view.json): the
// framework-op forest (cpu_op nesting by time containment per thread), the device kernels with
// the op that launched them (through flow events, or the Kineto correlation id), communication
// kernels, steps, and — for NPU — the Overlap Analysis totals.
//
//   io::Trace t; io::read_kineto_trace(path, t, diag);
//   Profile p = build_profile(std::move(t), /*npu=*/false);

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compare/kernel_category.h"
#include "readers/kineto_trace.h"

namespace cs::compare {

struct OpNode {
  uint32_t name = io::kNoString;
  uint32_t input_dims = io::kNoString;
  int64_t start_ns = 0, end_ns = 0;
  int64_t pid = 0, tid = 0;
  int32_t parent = -1;
  std::vector<int32_t> children;  // by start time
  double device_us = 0;           // kernels launched by this op and its descendants
  int64_t kernel_count = 0;       // same
};

struct DeviceKernel {
  uint32_t name = io::kNoString;
  uint32_t task_type = io::kNoString;
  int64_t start_ns = 0, end_ns = 0;
  double dur_us = 0;
  int64_t launch_ns = -1;   // CPU time of the launch, -1 when not linked
  int32_t op = -1;          // innermost launching op, -1 when not linked
  int32_t collective = -1;  // Trace::collectives index (NCCL args) or -1
  KernelCategory category = KernelCategory::kOther;
  readers::EventKind kind =
      readers::EventKind::kKernel;  // kKernel, kMemcpy, kMemset, kCommunication
  bool communication = false;       // NCCL / HCCL
};

struct StepWindow {
  int64_t number = -1;  // N of ProfilerStep#N
  int64_t start_ns = 0, end_ns = 0;
};

struct Profile {
  std::string source;  // path, for messages
  bool npu = false;
  readers::Trace trace;               // owns the strings
  std::vector<OpNode> ops;            // parents before children
  std::vector<int32_t> roots;         // top-level ops, by start time (all threads)
  std::vector<DeviceKernel> kernels;  // compute and communication, by start time
  std::vector<StepWindow> steps;      // by start time
  size_t linked_kernels = 0;          // kernels with a launching op

  // NPU Overlap Analysis totals (µs) of the selected step(s); has_overlap false on GPU.
  bool has_overlap = false;
  double overlap_computing_us = 0, overlap_comm_not_overlapped_us = 0, overlap_free_us = 0;
  int64_t overlap_start_ns = 0, overlap_end_ns = 0;

  std::string_view str(uint32_t id) const { return trace.strings.str(id); }
};

// Builds a Profile from a parsed trace. `npu` selects the NPU process conventions (kernels from
// "Ascend Hardware", communication from hcom_* ops, Overlap Analysis) instead of Kineto's.
// `step` keeps only the ops and kernels of ProfilerStep#step (nullopt: everything). Returns
// false with a warning in `diag` when the step is not in the trace.
bool build_profile(readers::Trace trace, bool npu, std::optional<int64_t> step, Profile& out,
                   io::Diagnostics& diag);

// Names of the ops enclosing op `op` (itself first), at most `max` of them.
std::vector<std::string_view> op_chain(const Profile& p, int32_t op, size_t max = 16);

}  // namespace cs::compare
