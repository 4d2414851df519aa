#include "msprof_analyze/recipes/compute_op_sum/compute_op_sum.h"

#include "frame/duration_stats.h"
#include "frame/frame_ops.h"
#include "msprof_analyze/recipes/compute_op_sum/compute_op_sum_scan.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"
#include "runtime/task_runner.h"

namespace cs::recipes::compute_op_sum {

namespace {

const char* kQuery =
    "SELECT NAME_IDS.value AS \"OpName\", OPTYPE_IDS.value AS \"OpType\", "
    "TASKTYPE_IDS.value AS \"TaskType\", INPUTSHAPES_IDS.value AS \"InputShapes\", "
    "round(TASK.endNs - TASK.startNs) AS \"Duration\" "
    "FROM COMPUTE_TASK_INFO "
    "LEFT JOIN TASK ON TASK.globalTaskId = COMPUTE_TASK_INFO.globalTaskId "
    "LEFT JOIN STRING_IDS AS NAME_IDS ON NAME_IDS.id = COMPUTE_TASK_INFO.name "
    "LEFT JOIN STRING_IDS AS OPTYPE_IDS ON OPTYPE_IDS.id = COMPUTE_TASK_INFO.opType "
    "LEFT JOIN STRING_IDS AS TASKTYPE_IDS ON TASKTYPE_IDS.id = COMPUTE_TASK_INFO.taskType "
    "LEFT JOIN STRING_IDS AS INPUTSHAPES_IDS ON INPUTSHAPES_IDS.id = COMPUTE_TASK_INFO.inputShapes "
    "WHERE TASK.startNs >= ? and TASK.startNs <= ?";

// pd.concat(describe_duration(df.groupby(keys)).assign(Rank=rank) for each rank), sorted by
// descending SumNs; the ranks described on up to `threads` threads.
frame::Frame per_rank(const std::vector<const frame::Frame*>& frames,
                      const std::vector<std::string>& keys, int threads) {
  std::vector<frame::Frame> parts(frames.size());
  runtime::parallel_for(frames.size(), threads, [&](size_t i) {
    parts[i] = frame::describe_duration(*frames[i], keys, "Duration");
    frame::assign(parts[i], "Rank", frame::find_column(*frames[i], "Rank")->cells.front());
  });
  std::vector<const frame::Frame*> ptrs;
  for (const auto& p : parts) ptrs.push_back(&p);
  const std::vector<std::string> names = frame::column_union(ptrs);
  frame::Frame all = frame::concat_frames(std::move(parts), names);
  all.index_columns = keys.size();
  return frame::sort_by(all, "SumNs", false);
}

}  // namespace

const char* compute_op_sum_sql() {
  return kQuery;
}

bool ComputeOpSum::map(const RankDbPaths& paths, frame::FrameSet& out,
                       io::Diagnostics& diag) const {
  return map_profiler_query(paths, "compute_op_sum.compute_ops", kQuery,
                            {"COMPUTE_TASK_INFO", "TASK", "STRING_IDS"}, out, diag,
                            scan_compute_ops);
}

bool ComputeOpSum::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                          io::Diagnostics& diag) const {
  const std::vector<const frame::Frame*> frames = used_frames(parts);
  if (frames.empty()) return true;
  const frame::Frame by_type = per_rank(frames, {"OpType", "TaskType"}, out.threads);
  const frame::Frame all = frame::concat_frames(frames, frame::column_union(frames));
  const frame::Frame all_stats = frame::sort_by(
      frame::describe_duration(all, {"OpType", "TaskType"}, "Duration"), "SumNs", false);
  const frame::Frame by_name =
      per_rank(frames, {"OpName", "OpType", "TaskType", "InputShapes"}, out.threads);
  return dump_recipe_frame(all_stats, out, dir_name(), "all_stats.csv", "ComputeOpAllRankStats",
                           diag) &&
         dump_recipe_frame(by_type, out, dir_name(), "rank_stats_by_optype.csv",
                           "ComputeOpPerRankStatsByOpType", diag) &&
         dump_recipe_frame(by_name, out, dir_name(), "rank_stats_by_opname.csv",
                           "ComputeOpPerRankStatsByOpName", diag);
}

}  // namespace cs::recipes::compute_op_sum
