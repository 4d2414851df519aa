#pragma once
// The simulated job's GPU twin as one Nsight Systems SQLite export (`nsys export --type sqlite`;
// `generate --nsys-sqlite FILE`), what msprof-analyze's calibrate_npu_gpu compares the NPU job
// with. Per rank: one host thread whose framework ops are NVTX push/pop ranges named as PyTorch's
// emit_nvtx names them ("aten::matmul, seq = 12, op_id = 40, sizes = [...]"), each around one
// cudaLaunchKernel (CUPTI_ACTIVITY_KIND_RUNTIME) of one kernel on device `rank`
// (CUPTI_ACTIVITY_KIND_KERNEL, joined by correlationId); in every forward pass the same module
// tree as the NPU side's mstx ranges (write_mstx_modules.h, the GPU's names) as NVTX ranges
// around those ops. A kernel runs the NPU kernel's device time scaled by its kind (GEMM 0.62,
// attention 0.55, elementwise 0.85, NCCL 0.9, others 0.8). The op ranges end 8 ns before the
// next op starts so every thread's ranges nest, as push/pop ranges do. Tables and columns as
// NVIDIA's export schema reference documents them (checked against the documentation only, no
// real export): StringIds, NVTX_EVENTS, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_KERNEL,
// ThreadNames.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "generator/db_export/sqlite_writer.h"
#include "generator/db_export/write_mstx_modules.h"
#include "generator/job/simulation.h"
#include "io/diagnostics.h"

namespace cs::generator {

class NsysSqliteWriter {
 public:
  // Creates `path` (replaced when it exists) with the tables. False with an error naming it.
  bool create(const std::string& path, io::Diagnostics& diag);
  // Adds rank `rank`'s GPU twin: `ops` its framework ops in launch order (write_profiler_db's).
  void add_rank(int rank, const std::vector<HostOpSpan>& ops, const RankTimeline& tl);
  // Writes StringIds and closes. False with an error naming the file.
  bool finish(io::Diagnostics& diag);

 private:
  int64_t string_id(std::string_view s);

  SqliteFile db_;
  std::optional<Insert> nvtx_, runtime_, kernel_, threads_;
  std::unordered_map<std::string, int64_t> ids_;
  std::vector<const std::string*> order_;
  int64_t next_correlation_ = 1;
  int64_t next_seq_ = 0;
};

}  // namespace cs::generator
