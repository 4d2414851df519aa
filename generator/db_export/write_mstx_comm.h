#pragma once
// Communication recorded only as mstx markers (`generate --mstx-comm`): a job profiled without
// the HCCL op detail (no COMMUNICATION_OP / COMMUNICATION_TASK_INFO tables) whose communication
// library marks each op with an mstx range carrying its identity as JSON, tied to one device task
// spanning the op: msprof-analyze's mstx2commop input.

#include <cstdint>
#include <string>

#include "generator/db_export/sqlite_writer.h"
#include "generator/job/simulation.h"

namespace cs::generator {

// The rank database's tables and running ids the markers go to (ids advanced for each row).
struct MstxCommSink {
  Insert& mstx;  // MSTX_EVENTS
  Insert& task;  // TASK
  StringIdTable& ids;
  int64_t& next_connection;
  int64_t& next_global_task;
  int64_t& next_task_id;
  int64_t global_tid = 0, pid = 0;
  int device = 0;
  int64_t next_range = 2000000;  // after the step, annotation and pass ranges
};

// One op as its marker describes it.
struct MstxCommOp {
  const char* op_name = "";          // the hcom name stem without its "_": "hcom_allReduce"
  std::string group;                 // the HCCL group id
  int64_t count = 0;                 // elements
  int64_t start_ns = 0, end_ns = 0;  // on the device
  int64_t host_start_ns = 0, host_end_ns = 0;  // the launch on the host
};

// The marker's stream id: the logical stream handle, which names no TASK stream (msprof-analyze
// also joins TASK rows whose streamId equals it).
inline constexpr int64_t kMstxCommStream = 7001;

// Writes the marker (message {"opName", "groupName", "dataType": "bfp16", "count", "streamId"})
// and its device task (type MSTX_RANGE on the HCCL stream `stream`).
void write_mstx_comm_op(MstxCommSink& sink, const MstxCommOp& op, int stream);

}  // namespace cs::generator
