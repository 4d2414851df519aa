#pragma once
// ascend_pytorch_profiler_{rank}.db (torch_npu export type db; also MindSpore's
// ascend_mindspore_profiler_{rank}.db and CANN's msprof_*.db, which share these tables): every
// string column is an id into STRING_IDS, times are in ns.
//   COMPUTE_TASK_INFO(name, globalTaskId, opType, inputShapes, ...) joined with
//   TASK(startNs, endNs, globalTaskId, ...)   -> the kernels kernel_details.csv lists
//   STEP_TIME(id, startNs, endNs)              -> the step a kernel belongs to
//   META_DATA(name, value)                     -> distributed_args, parallel_group_info (JSON)
//   RANK_DEVICE_MAP(rankId, deviceId)

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "db/database.h"
#include "db/string_ids.h"
#include "io/diagnostics.h"
#include "readers/kernel_details.h"
#include "readers/profiler_info.h"

namespace cs::db {

// One step of STEP_TIME, ns.
struct StepTime {
  int64_t id = -1;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// Reads STEP_TIME (empty, no error, when the table is absent). Rows with NULLs are reported.
bool read_step_time(const Database& db, std::vector<StepTime>& out, io::Diagnostics& diag);

// Streams the compute kernels (COMPUTE_TASK_INFO joined with TASK) as KernelRecords in start
// order: name, type (opType), input shapes and dtypes from STRING_IDS, start and duration in us,
// wait_us from waitNs, step_id from STEP_TIME (-1 outside every step). A string id missing from
// STRING_IDS or a NULL time skips the kernel and is counted in one error naming the table.
// Returns false when a table is missing or unreadable.
bool read_compute_kernels(const Database& db, const StringIds& strings,
                          const std::function<void(const readers::KernelRecord&)>& on_kernel,
                          io::Diagnostics& diag);

// One row of COMMUNICATION_OP: a collective as the host launched it (kernel_details.csv's hcom_*
// rows), times in us.
struct CommunicationOp {
  std::string_view name;  // "hcom_allReduce__210_0_1"
  std::string_view type;  // "hcom_allReduce_" ("" when the opType id is unknown)
  double start_us = 0;
  double duration_us = 0;
};

// Streams COMMUNICATION_OP in start order (true and nothing when the table is absent: a job
// without collectives). Rows with NULLs or string ids missing from STRING_IDS are skipped and
// counted in one diagnostic naming the table.
bool read_communication_ops(const Database& db, const StringIds& strings,
                            const std::function<void(const CommunicationOp&)>& on_op,
                            io::Diagnostics& diag);

// Reads META_DATA's distributed_args and parallel_group_info into the structure
// profiler_metadata.json fills. Returns false when META_DATA is absent or neither entry is
// there; a damaged JSON value is reported.
bool read_meta_data(const Database& db, readers::ProfilerMetadata& out, io::Diagnostics& diag);

// RANK_DEVICE_MAP's (rank, device) pairs; empty when absent.
std::vector<std::pair<int64_t, int64_t>> read_rank_device_map(const Database& db,
                                                              io::Diagnostics& diag);

}  // namespace cs::db
