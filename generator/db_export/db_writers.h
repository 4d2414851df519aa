#pragma once
// The DB export of a simulated rank: torch_npu's two databases (analysis.db and
// ascend_pytorch_profiler_{rank}.db) from the rank's timeline and its rendered text documents.

#include <string>
#include <vector>

#include "generator/job/writers.h"
#include "io/diagnostics.h"

namespace cs::generator {

struct HostOpSpan;  // write_mstx_modules.h

// ASCEND_PROFILER_OUTPUT/analysis.db (StepTraceTime, CommAnalyzerTime, CommAnalyzerBandwidth,
// CommAnalyzerMatrix) holding the numbers of `docs`. False with diagnostics on a write failure.
bool write_analysis_db(const std::string& path, const RankDocuments& docs, io::Diagnostics& diag);
// ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_{rank}.db: STRING_IDS, TASK, COMPUTE_TASK_INFO,
// COMMUNICATION_OP, COMMUNICATION_TASK_INFO, CANN_API, PYTORCH_API, CONNECTION_IDS, MSTX_EVENTS,
// STEP_TIME, META_DATA, RANK_DEVICE_MAP, HOST_INFO, SESSION_TIME_INFO, NPU_INFO and the ENUM_*
// tables, times in ns; the kernels and ops of kernel_details.csv at the same nanoseconds.
// `host_ops` (optional) receives the rank's framework ops (write_mstx_modules.h), for the GPU twin.
bool write_profiler_db(const std::string& path, const WriteContext& ctx, int rank,
                       const RankTimeline& tl, io::Diagnostics& diag,
                       std::vector<HostOpSpan>* host_ops = nullptr);

}  // namespace cs::generator
