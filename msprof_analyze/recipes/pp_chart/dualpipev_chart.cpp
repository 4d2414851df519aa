#include "msprof_analyze/recipes/pp_chart/dualpipev_chart.h"

#include <algorithm>
#include <map>
#include <vector>

#include "pipeline/dualpipev.h"

namespace cs::recipes::pp_chart {

namespace {

// A distributed_args size as msprof-analyze accepts it: absent -> 1; a positive integer; else
// unset. Cells: the JSON type of the key (NULL when absent) and its value.
std::optional<int64_t> parallel_size(const frame::Cell& type, const frame::Cell& value) {
  if (type.is_null()) return 1;
  const std::string& t = type.str();
  if ((t == "integer" || t == "true" || t == "false") && value.i() > 0) return value.i();
  return std::nullopt;
}

}  // namespace

const char* pipeline_info_query() {
  // One row: pp_info's pp_type and microbatch_num (with its JSON type), then whether
  // distributed_args is there and valid JSON, and the JSON type and value of each size.
  return R"(
WITH pp AS (SELECT value FROM META_DATA WHERE name = 'pp_info' LIMIT 1),
     da AS (SELECT value FROM META_DATA WHERE name = 'distributed_args' LIMIT 1)
SELECT (SELECT lower(json_extract(value, '$.pp_type')) FROM pp WHERE json_valid(value)
          AND json_type(value, '$.pp_type') = 'text'),
       (SELECT json_type(value, '$.microbatch_num') FROM pp WHERE json_valid(value)),
       (SELECT json_extract(value, '$.microbatch_num') FROM pp WHERE json_valid(value)),
       (SELECT count(*) FROM da),
       (SELECT json_valid(value) AND json_type(value) = 'object' FROM da),
       (SELECT json_type(value, '$.tensor_model_parallel_size') FROM da WHERE json_valid(value)),
       (SELECT json_extract(value, '$.tensor_model_parallel_size') FROM da WHERE json_valid(value)),
       (SELECT json_type(value, '$.pipeline_model_parallel_size') FROM da WHERE json_valid(value)),
       (SELECT json_extract(value, '$.pipeline_model_parallel_size') FROM da
          WHERE json_valid(value)),
       (SELECT json_type(value, '$.data_parallel_size') FROM da WHERE json_valid(value)),
       (SELECT json_extract(value, '$.data_parallel_size') FROM da WHERE json_valid(value)))";
}

PipelineInfo pipeline_info(const frame::Frame& meta) {
  PipelineInfo info;
  if (meta.rows() == 0 || meta.columns.size() < 11) return info;
  auto cell = [&](size_t c) -> const frame::Cell& { return meta.columns[c].cells[0]; };
  info.pp_type = cell(0).str();
  if (cell(1).str() == "integer") info.microbatches = cell(2).i();
  if (cell(3).i() == 0) {  // no distributed_args: msprof-analyze takes every size as 1
    info.tp = info.pp = info.dp = 1;
    return info;
  }
  if (cell(4).i() == 0) return info;  // not a JSON object: the sizes are lost
  info.tp = parallel_size(cell(5), cell(6));
  info.pp = parallel_size(cell(7), cell(8));
  info.dp = parallel_size(cell(9), cell(10));
  return info;
}

bool name_dualpipev(frame::Frame& tasks, int rank, const PipelineInfo& info,
                    const std::string& where, io::Diagnostics& diag) {
  const int64_t per_stage = *info.tp * *info.dp;
  if (rank < 0 || rank >= per_stage * *info.pp) {
    diag.warn(where, 0, "rank " + std::to_string(rank) + " does not belong to any pipeline stage",
              "META_DATA's distributed_args gives tp x pp x dp = " +
                  std::to_string(per_stage * *info.pp) + " ranks; this rank gets no StepTaskInfo");
    return false;
  }
  const auto stage = static_cast<size_t>(rank / per_stage);
  // msprof-analyze names nothing when there are fewer than 2 * pp micro-batches (its schedule is
  // then empty and every step's count differs from the expected 0).
  const pipeline::DualPipeVSchedule schedule =
      info.microbatches && *info.microbatches <= (int64_t{1} << 20)
          ? pipeline::dualpipev_schedule(static_cast<int>(*info.pp), *info.microbatches)
          : pipeline::DualPipeVSchedule{};
  const std::vector<pipeline::ScheduleBlock> no_blocks;
  const auto& blocks = stage < schedule.blocks.size() ? schedule.blocks[stage] : no_blocks;
  const int64_t expected = stage < schedule.expected.size() ? schedule.expected[stage] : 0;
  // Keep each range that starts at or after the end of the last kept one; then group by step.
  const auto& start = tasks.columns[1].cells;
  const auto& end = tasks.columns[2].cells;
  const auto& step = tasks.columns[3].cells;
  std::map<int64_t, std::vector<size_t>> by_step;  // ordered as pandas' groupby sorts its keys
  int64_t last_end = -1;
  for (size_t r = 0; r < tasks.rows(); ++r) {
    if (start[r].i() < last_end) continue;
    last_end = end[r].i();
    if (!step[r].is_null()) by_step[step[r].i()].push_back(r);
  }
  frame::Frame out;
  auto& name = out.add("name");
  auto& starts = out.add("startNs");
  auto& ends = out.add("endNs");
  auto& type = out.add("type");
  for (const auto& [s, rows] : by_step) {
    const bool named =
        static_cast<int64_t>(rows.size()) == expected && rows.size() <= blocks.size();
    if (!named)
      diag.warn(where, 0,
                "step " + std::to_string(s) + " has " + std::to_string(rows.size()) +
                    " DualPipeV mstx ranges where pipeline stage " + std::to_string(stage) +
                    " expects " + std::to_string(expected),
                "its StepTaskInfo rows get an empty name and type 0 (as msprof-analyze's)");
    for (size_t k = 0; k < rows.size(); ++k) {
      name.push_back(frame::Cell::text(named ? blocks[k].name : ""));
      starts.push_back(start[rows[k]]);
      ends.push_back(end[rows[k]]);
      type.push_back(frame::Cell::integer(named ? blocks[k].phase : 0));
    }
  }
  tasks = std::move(out);
  return true;
}

}  // namespace cs::recipes::pp_chart
