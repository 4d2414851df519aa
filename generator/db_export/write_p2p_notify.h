#pragma once
// HCCL's handshake around a point-to-point transfer, as level1 profiling records it: the
// Notify_Record / Notify_Wait tasks of each send and receive (`generate --notify-tasks`), the rows
// msprof-analyze's p2p_pairing reads to pair every send with its receive.

#include <cstdint>

#include "generator/db_export/sqlite_writer.h"
#include "generator/job/simulation.h"

namespace cs::generator {

// Where the notify tasks go: the TASK and COMMUNICATION_TASK_INFO inserts of the rank's
// database, its string ids and the running task ids (advanced for each task written).
struct NotifyTaskSink {
  Insert& task;
  Insert& comm_task;
  StringIdTable& ids;
  int64_t& next_global_task;
  int64_t& next_task_id;
};

// One p2p op's device and its identity in COMMUNICATION_OP.
struct NotifyOp {
  int64_t start_ns = 0, end_ns = 0;  // the op's span
  int64_t transfer_start_ns = 0;     // where its data transfer starts
  int64_t connection_id = 0, op_id = 0, name_id = 0, group_id = 0;
  int device = 0, stream = 0;
  int64_t pid = 0;
};

// Writes the two notify tasks of send/receive `c` (nothing for a collective). A send waits for
// the receiver's ready signal (Notify_Wait, from its start to the transfer) and records the end
// of the transfer (Notify_Record at its end); a receive records that it is ready (Notify_Record
// at its start) and waits for the data (Notify_Wait over the op). Both give srcRank = the rank
// itself and dstRank = its peer (local ranks in the pipeline group), as HCCL does.
void write_p2p_notify_tasks(NotifyTaskSink& sink, const CommRecord& c, const NotifyOp& op);

}  // namespace cs::generator
