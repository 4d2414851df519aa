#pragma once
// The operator calls of one profile for `clusterscope top`: a rank directory
// (ASCEND_PROFILER_OUTPUT/kernel_details.csv, else trace_view.json, else the DB export's
// ascend_pytorch_profiler_N.db), a kernel_details.csv, a profiler database, a Kineto trace
// (.json / .json.gz) or an NPU trace_view.json. Each call carries its device time, and the work and
// bytes estimated from shapes and dtypes (top/top_cost.h) where those are known.
//
//   std::vector<OpCall> calls; std::string used; io::Diagnostics diag;
//   if (load_op_calls("rank0_ascend_pt", calls, used, diag)) ...   // used =
//   ".../kernel_details.csv"

#include <string>
#include <string_view>
#include <vector>

#include "io/diagnostics.h"
#include "readers/kineto_trace.h"

namespace cs::top {

struct OpCall {
  std::string name;           // kernel / task name
  std::string type;           // kernel_details Type; for traces the enclosing framework op
  std::string input_shapes;   // "81920,4096;8192,512" (kernel_details) or "[[2048], []]" (Kineto)
  std::string input_dtypes;   // "DT_BF16;DT_BF16"; "" when unknown
  std::string output_shapes;  // "" when unknown
  double dur_us = 0;          // device time of the call
  double flops = 0;           // NaN when not derivable
  double bytes = 0;           // NaN when not derivable
};

// Resolves `profile` (directory or file), reads it and appends its calls to `out`. `used` names
// the file read. False with an error diagnostic (path, what to do) when nothing usable is found.
bool load_op_calls(const std::string& profile, std::vector<OpCall>& out, std::string& used,
                   io::Diagnostics& diag);

// The op type of an hcom op as kernel_details.csv writes it: "hcom_allReduce__586_0_1" ->
// "hcom_allReduce_".
std::string hcom_type(std::string_view name);

// Device work of a parsed trace: kernels (and memcpy/memset), and on NPU the compute tasks and
// the hcom_* communication ops (typed as kernel_details.csv types them, "hcom_allReduce_"); an
// NPU trace's waits, DMA and a collective's device tasks are not kernels. Each kernel is
// attributed to the innermost framework op (cpu_op) that launched it — through the runtime call
// sharing its correlation id (Kineto) or the flow from the op to the task (NPU) — whose name
// becomes the type and its input dims the shapes. Others are typed by their task type
// ("AI_CORE") or "kernel".
void calls_from_trace(const readers::Trace& trace, std::vector<OpCall>& out);

}  // namespace cs::top
