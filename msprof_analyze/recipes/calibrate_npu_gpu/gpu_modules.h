#pragma once
// The GPU side of msprof-analyze's calibrate_npu_gpu: an Nsight Systems SQLite export
// (`nsys export --type sqlite`) read as its GPUAnalyzer reads it. NVTX push/pop ranges
// (NVTX_EVENTS, eventType 59; the name from `text`, else StringIds through `textId`) open and
// close on their thread at their start and end; each CUDA kernel (CUPTI_ACTIVITY_KIND_KERNEL,
// joined to its launch in CUPTI_ACTIVITY_KIND_RUNTIME by correlationId) belongs, at its launch's
// host start, to the innermost open range of its thread whose name contains one of msprof-
// analyze's module markers (Qwen, Attention, Linear, RMSNorm, Embedding, Sampler, Logits) and to
// the innermost open op range (a name with "::", cut at its first ","; "None" without one). A
// kernel outside every module range is left out. Events at the same time are taken ranges'
// starts first, then ends, then launches (each in query order), and an end closes whatever range
// its thread opened last. Rows are kept per device (deviceId): msprof-analyze pairs device N with
// NPU rank N.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "io/diagnostics.h"

namespace cs::recipes::calibrate_npu_gpu {

// One NVTX push/pop range; `name` indexes the reader's names.
struct NvtxRange {
  int64_t start = 0, end = 0, thread = 0;
  uint32_t name = 0;
};

// One kernel: its launch's host start and thread, its device time and name, its device.
struct GpuLaunch {
  int64_t cpu_start = 0, thread = 0, duration = 0, device = 0;
  uint32_t kernel = 0;
};

// Kernel time of one (parent module path, module, op, kernel) on one device. The parent path is
// "/"-joined with a leading "/" ("/Qwen2Model/Qwen2DecoderLayer"), empty for a top module.
struct GpuKernelStat {
  std::string parent, module, op, kernel;
  int64_t total_ns = 0, count = 0;
};

// Per device, the kernel statistics in (parent, module, op, kernel) order.
using GpuProfile = std::map<int64_t, std::vector<GpuKernelStat>>;

// The attribution above. `names` holds the range and kernel names `ranges` and `launches`
// index; both lists in the order the export's queries give them (ranges by start).
GpuProfile attribute_kernels(const std::vector<std::string>& names,
                             const std::vector<NvtxRange>& ranges,
                             const std::vector<GpuLaunch>& launches);

// Reads the export at `path`. False with one error naming the file and what to do when it is
// not a readable SQLite database, lacks a table or column the reading needs, or a query fails.
bool read_gpu_profile(const std::string& path, GpuProfile& out, io::Diagnostics& diag);

}  // namespace cs::recipes::calibrate_npu_gpu
