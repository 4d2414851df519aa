#pragma once
// The mstx ranges a pipeline-parallel training script (MindSpeed) records around each forward
// and backward micro-batch on the device (`generate --mstx-passes`): what msprof-analyze's
// pp_chart reads to draw the pipeline. Under `--pp-schedule dualpipev` the ranges follow the
// DualPipeV schedule of the rank's stage instead (pipeline/dualpipev.h).

#include <cstdint>
#include <functional>

#include "generator/db_export/sqlite_writer.h"
#include "generator/job/simulation.h"
#include "pipeline/dualpipev.h"

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
  // DualPipeV: the schedule blocks of the rank's stage (null: one range per simulated pass).
  const std::vector<pipeline::ScheduleBlock>* blocks = nullptr;
};

// Per pass of `tl`: an MSTX_EVENTS range "forward_step" / "backward_step" (eventType start/end,
// recorded on the host `lead_us` ahead) tied by its connectionId to one device task (TASK, type
// MSTX_RANGE, on the compute stream) spanning the pass on the device. With `sink.blocks`, per step
// one such range per schedule block instead, in schedule order, named by block_message: the
// step's pass kernels are cut into consecutive runs, one per block, sized by the block's work (an
// overlapped forward+backward 3, a backward 2, anything else 1), so the ranges tile the step's
// compute without overlapping, as the V schedule would.
void write_mstx_passes(MstxPassSink& sink, const RankTimeline& tl);

}  // namespace cs::generator
