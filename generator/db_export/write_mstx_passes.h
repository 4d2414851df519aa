#pragma once
// The mstx ranges a pipeline-parallel training script (MindSpeed) records around each forward
// and backward micro-batch on the device (`generate --mstx-passes`): what msprof-analyze's
// pp_chart reads to draw the pipeline.

#include <cstdint>
#include <functional>

#include "generator/db_export/sqlite_writer.h"
#include "generator/job/simulation.h"

namespace cs::generator {

// The rank database's tables and running ids the ranges go to (ids advanced for each row).
struct MstxPassSink {
  Insert& mstx;  // MSTX_EVENTS
  Insert& task;  // TASK
  StringIdTable& ids;
  int64_t& next_connection;
  int64_t& next_global_task;
  int64_t& next_task_id;
  int64_t global_tid = 0, pid = 0;
  int device = 0;
  std::function<int64_t(double)> ns;  // relative microseconds -> absolute nanoseconds
  double lead_us = 0;                 // how far the host runs ahead of the device
};

// Per pass of `tl`: an MSTX_EVENTS range "forward_step" / "backward_step" (eventType start/end,
// recorded on the host `lead_us` ahead) tied by its connectionId to one device task (TASK, type
// MSTX_RANGE, on the compute stream) spanning the pass on the device.
void write_mstx_passes(MstxPassSink& sink, const RankTimeline& tl);

}  // namespace cs::generator
