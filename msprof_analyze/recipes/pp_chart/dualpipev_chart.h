#pragma once
// pp_chart's DualPipeV naming (msprof-analyze's _mapper_func_for_dualpipev): when the job's
// META_DATA pp_info says pp_type "dualpipev" (read from the lowest rank's database, where
// msprof-analyze reads the first rank its directory walk finds: the same when the ranks agree),
// and distributed_args gives tp x pp x dp (rank r's stage is r / (tp * dp)), each rank's mstx
// ranges are cut to the ones that do not overlap the previous kept one (in device start order),
// grouped by the STEP_TIME step they were recorded in (a range in no step is dropped), and each
// step's ranges named in order by the DualPipeV schedule of the rank's pipeline stage
// (pipeline/dualpipev.h): "0", "4b", "7F+1B", "logits", type = the schedule phase. A step whose
// range count differs from what the stage expects keeps name "" and type 0 (msprof-analyze logs an
// error and writes them so).

#include <optional>
#include <string>

#include "frame/frame.h"
#include "io/diagnostics.h"

namespace cs::recipes::pp_chart {

// What the first rank's META_DATA says about the pipeline (pp_info, distributed_args).
struct PipelineInfo {
  std::string pp_type;                  // pp_info's pp_type, lower case ("" when none)
  std::optional<int64_t> microbatches;  // pp_info's microbatch_num when an integer
  // distributed_args' tensor, pipeline and data parallel sizes (1 when a key is absent); unset
  // when META_DATA has them but not as positive integers ("the parallel strategy is lost").
  std::optional<int64_t> tp, pp, dp;
  bool dualpipev() const { return pp_type == "dualpipev"; }
  bool sizes_valid() const { return tp && pp && dp; }
};

// Reads the frame pipeline_info_query() gives for one rank.
PipelineInfo pipeline_info(const frame::Frame& meta);
// The query of a rank database's META_DATA that pipeline_info() reads (one row).
const char* pipeline_info_query();

// Names the DualPipeV chart of global rank `rank` in place: `tasks` (name, startNs, endNs, step,
// in device start order) becomes StepTaskInfo's (name, startNs, endNs, type). False (with a
// warning on `where`) when the rank is outside the tp x pp x dp ranks (no chart for it).
bool name_dualpipev(frame::Frame& tasks, int rank, const PipelineInfo& info,
                    const std::string& where, io::Diagnostics& diag);

}  // namespace cs::recipes::pp_chart
