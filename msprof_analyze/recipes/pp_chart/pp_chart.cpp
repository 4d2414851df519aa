#include "msprof_analyze/recipes/pp_chart/pp_chart.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>
#include <string>

#include "msprof_analyze/recipes/frame_writers.h"
#include "msprof_analyze/recipes/mstx2commop/mstx2commop.h"
#include "msprof_analyze/recipes/p2p_pairing/p2p_pairing.h"
#include "msprof_analyze/recipes/pp_chart/dualpipev_chart.h"
#include "msprof_analyze/recipes/rank_db.h"

namespace cs::recipes::pp_chart {

namespace {

// The device span of each forward/backward MSTX event, in start order, with the STEP_TIME step
// its host range lies in (0 without STEP_TIME; a range in two steps is listed twice, as in
// msprof-analyze). SQL's AND binds before OR, so the step range filters only the
// WeightGradStore_pop events (as in msprof-analyze).
constexpr const char* kQuery = R"(
SELECT msg.value, TASK.startNs, TASK.endNs, %STEP%
FROM MSTX_EVENTS
     JOIN TASK ON MSTX_EVENTS.connectionId = TASK.connectionId
     JOIN STRING_IDS AS msg ON MSTX_EVENTS.message = msg.id
     %JOIN%
WHERE msg.value LIKE '%forward%' OR msg.value LIKE '%backward%'
      OR msg.value LIKE '%WeightGradStore_pop%' AND MSTX_EVENTS.startNs >= ?
         AND MSTX_EVENTS.startNs <= ?
ORDER BY TASK.startNs)";

std::string task_query(bool has_step_time) {
  std::string q = kQuery;
  auto put = [&](const std::string& key, const char* text) {
    q.replace(q.find(key), key.size(), text);
  };
  put("%STEP%", has_step_time ? "step_time.id" : "0");
  put("%JOIN%", has_step_time ? "LEFT JOIN STEP_TIME AS step_time ON MSTX_EVENTS.startNs >= "
                                "step_time.startNs AND MSTX_EVENTS.endNs <= step_time.endNs"
                              : "");
  return q;
}

bool step_tasks(RankDb& db, const RankDbPaths& paths, frame::Frame& out, io::Diagnostics& diag) {
  for (const char* t : {"MSTX_EVENTS", "TASK", "STRING_IDS"})
    if (!db.has_table(t)) {
      diag.warn(paths.profiler_db, 0, std::string("no table ") + t,
                "this rank gets no StepTaskInfo (no mstx forward/backward marks)");
      return false;
    }
  frame::Frame rows;
  if (!db.query(task_query(db.has_table("STEP_TIME")), {0, std::numeric_limits<int64_t>::max()},
                rows, "MSTX_EVENTS", diag))
    return false;
  if (rows.rows() == 0) {
    diag.warn(paths.profiler_db, 0, "no mstx forward/backward event tied to a device task",
              "this rank gets no StepTaskInfo");
    return false;
  }
  auto& name = out.add("name");
  for (const frame::Cell& m : rows.columns[0].cells)
    name.push_back(frame::Cell::text(pass_name(m.str())));
  out.columns.push_back(std::move(rows.columns[1]));
  out.columns.back().name = "startNs";
  out.columns.push_back(std::move(rows.columns[2]));
  out.columns.back().name = "endNs";
  out.columns.push_back(std::move(rows.columns[3]));
  out.columns.back().name = "step";
  return true;
}

// The 1F1B chart: the step column gives way to the type (FP 0, BP 1).
void name_1f1b(frame::Frame& tasks) {
  tasks.columns.pop_back();
  auto& type = tasks.add("type");
  for (const frame::Cell& n : tasks.columns[0].cells)
    type.push_back(frame::Cell::integer(n.str() == "FP" ? 0 : 1));
}

// What the rank's META_DATA says of the pipeline (dualpipev_chart.h), as a one-row frame.
bool pipeline_meta(RankDb& db, frame::Frame& out) {
  if (!db.has_table("META_DATA")) return false;
  io::Diagnostics quiet;
  return db.query(pipeline_info_query(), {}, out, "META_DATA", quiet) && out.rows() == 1;
}

}  // namespace

const char* pass_name(const std::string& msg) {
  std::string lower(msg);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("forward") != std::string::npos ? "FP" : "BP";
}

bool PPChart::map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const {
  // As msprof-analyze: mstx2commop first (a rank without COMMUNICATION_OP), then p2p_pairing
  // (on the database as it was: a converted rank has no tasks to pair), then the chart.
  frame::FrameSet converted;
  frame::Frame pairs, tasks, meta;
  io::Diagnostics quiet;  // a rank without markers or send/receive still gets its chart
  const bool has_ops = mstx2commop::Mstx2Commop().map(paths, converted, quiet);
  RankDb db(paths.profiler_db, diag);  // one reader (and SQLite's parse of the schema) for all
  if (!db.ok() && !has_ops) return false;
  const bool paired = db.ok() && p2p_pairing::pair_rank(db, paths, pairs, quiet);
  const bool charted = db.ok() && step_tasks(db, paths, tasks, diag);
  if (!has_ops && !paired && !charted) return false;
  if (has_ops) {
    out["op"] = std::move(converted.at("op"));
    out["strings"] = std::move(converted.at("strings"));
  }
  if (paired) out["pairs"] = std::move(pairs);
  if (charted) out["tasks"] = std::move(tasks);
  if (db.ok() && pipeline_meta(db, meta)) out["pipeline"] = std::move(meta);
  frame::Frame source;
  source.add("path").push_back(frame::Cell::text(paths.profiler_db));
  out["source"] = std::move(source);
  return true;
}

bool PPChart::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                     io::Diagnostics& diag) const {
  if (out.export_type != ExportType::kDb) {
    diag.warn(out.cluster_output_dir, 0,
              "pp_chart writes nothing for --export_type text (as msprof-analyze)",
              "run it with --export_type db for each rank's StepTaskInfo");
    return true;
  }
  // As msprof-analyze, the first rank's META_DATA decides how the chart is named.
  PipelineInfo info;
  if (!parts.empty() && parts.front().used && parts.front().frames.count("pipeline"))
    info = pipeline_info(parts.front().frames.at("pipeline"));
  if (info.dualpipev() && !info.sizes_valid())
    diag.warn(parts.front().frames.at("source").columns[0].cells[0].str(), 0,
              "META_DATA's distributed_args has no valid tensor, pipeline and data parallel "
              "sizes, which a DualPipeV chart needs",
              "no rank gets StepTaskInfo (the pairing is still written)");
  bool ok = true;
  for (const auto& p : parts) {
    if (!p.used) continue;
    const auto pairs = p.frames.find("pairs");
    const std::string& db_path = p.frames.at("source").columns[0].cells[0].str();
    std::optional<frame::Frame> chart;
    if (const auto t = p.frames.find("tasks"); t != p.frames.end()) {
      chart = t->second;
      if (!info.dualpipev())
        name_1f1b(*chart);
      else if (!info.sizes_valid() || !name_dualpipev(*chart, p.rank, info, db_path, diag) ||
               chart->rows() == 0)
        chart.reset();
    }
    ok = p2p_pairing::write_rank_copy(
             out, dir_name(), db_path,
             [&](const std::string& tmp, const std::string& shown) {
               if (p.frames.count("op") &&
                   !mstx2commop::write_communication_op(tmp, p.frames, shown, diag))
                 return false;
               return (pairs == p.frames.end() ||
                       p2p_pairing::add_connection_ids(tmp, pairs->second, shown, diag)) &&
                      (!chart || write_frame_sqlite(*chart, tmp, "StepTaskInfo", diag, 1));
             },
             diag) &&
         ok;
  }
  return ok;
}

}  // namespace cs::recipes::pp_chart
