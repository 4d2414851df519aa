#pragma once
// Kernel-level MFU as msprof-analyze's operator_mfu computes it for one rank (its
// MFUCalculator): each FLOPs record (an mstx range in the domain "mfu_flops", message
// "<FLOPs>-<name>") covers the framework ops that start inside it (bounds included); their
// compute kernels that have shapes (COMPUTE_TASK_INFO joined to TASK, shapes not "N/A"), each
// (start, end) once, share the record's FLOPs: every kernel with a positive duration gets
// mfu = FLOPs / duration(s) / chip peak and actual TFLOPS = FLOPs / duration(s) / 1e12 (a record
// whose kernels add up to no time is skipped). The first kernel's input data type picks the peak.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "msprof_analyze/recipes/operator_mfu/chip_peak.h"

namespace cs::recipes::operator_mfu {

// A kernel and its framework op, as the op-to-kernel query gives them (kernel NULL: nullopt).
struct OpKernel {
  std::optional<std::string> kernel;
  int64_t kernel_ts = 0, kernel_end = 0;
  std::string op;
  int64_t op_ts = 0, op_end = 0;
};

// A compute kernel's shapes row (texts NULL: nullopt; shapes without their quotes).
struct KernelShape {
  std::optional<std::string> kernel;
  int64_t kernel_ts = 0, kernel_end = 0, duration = 0;
  std::optional<std::string> input_shapes, input_types, output_shapes;
};

// One recorded FLOPs range; `message` nullopt when NULL.
struct FlopsRange {
  int64_t start = 0, end = 0;
  std::optional<std::string> message;
};

// The FLOPs and the name of a record's message "<digits>-<name>" (what the regex
// ^(\d+)-(.+)$ takes); nullopt when it does not match or the FLOPs are 0. FLOPs beyond int64
// come back as a double (`real`).
struct ParsedFlops {
  int64_t flops = 0;
  double flops_real = 0;
  bool real = false;
  std::string name;
  double value() const { return real ? flops_real : static_cast<double>(flops); }
};
std::optional<ParsedFlops> parse_flops(const std::optional<std::string>& message);

// One kernel's MFU (a row of msprof-analyze's mfu frame).
struct KernelMfu {
  std::optional<std::string> kernel;
  int64_t kernel_ts = 0, kernel_end = 0;
  double mfu = 0;
  ParsedFlops flops;
  int64_t duration = 0;
  double peak = 0, actual_tflops = 0;
  std::optional<std::string> input_shapes, output_shapes;
};

// The records kernel_mfu could not use: messages that are not "<positive FLOPs>-<name>"
// (msprof-analyze drops them silently), and the input data types of records whose type has no
// peak (msprof-analyze stops the whole run there).
struct MfuSkips {
  size_t malformed = 0;
  std::vector<std::string> unsupported;
};

// The MFU rows of one rank, records in `ranges` order (start order), kernels in (op start,
// kernel start, kernel end) order.
std::vector<KernelMfu> kernel_mfu(const std::vector<OpKernel>& compute_kernels,
                                  const std::vector<KernelShape>& shapes,
                                  const std::vector<FlopsRange>& ranges, const ChipPeak& chip,
                                  MfuSkips& skips);

// A module row's average MFU (msprof-analyze's compute_mfu_avg): per kernel position, the mean
// (numpy's) of the calls' positive MFUs in percent, rounded to 2 decimals and printed as Python
// prints a float, with "%", joined by ","; positions without one are left out. `calls`: per call,
// indices into `mfu` (-1: the kernel has none). Example: {{0, 1}, {2, 3}} with {0.5, -1, 0.25,
// 0.3} -> "37.5%,30.0%".
std::string average_mfu(const std::vector<std::vector<size_t>>& calls,
                        const std::vector<double>& mfu);

}  // namespace cs::recipes::operator_mfu
