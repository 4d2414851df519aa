#include "msprof_analyze/recipes/pp_chart/pp_chart.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <string>

#include "msprof_analyze/recipes/frame_writers.h"
#include "msprof_analyze/recipes/mstx2commop/mstx2commop.h"
#include "msprof_analyze/recipes/p2p_pairing/p2p_pairing.h"
#include "msprof_analyze/recipes/rank_db.h"

namespace cs::recipes::pp_chart {

namespace {

// The device span of each forward/backward MSTX event, in start order. SQL's AND binds before
// OR, so the step range filters only the WeightGradStore_pop events (as in msprof-analyze).
constexpr const char* kQuery = R"(
SELECT msg.value, TASK.startNs, TASK.endNs
FROM MSTX_EVENTS
     JOIN TASK ON MSTX_EVENTS.connectionId = TASK.connectionId
     JOIN STRING_IDS AS msg ON MSTX_EVENTS.message = msg.id
WHERE msg.value LIKE '%forward%' OR msg.value LIKE '%backward%'
      OR msg.value LIKE '%WeightGradStore_pop%' AND MSTX_EVENTS.startNs >= ?
         AND MSTX_EVENTS.startNs <= ?
ORDER BY TASK.startNs)";

bool step_tasks(const RankDbPaths& paths, frame::Frame& out, io::Diagnostics& diag) {
  RankDb db(paths.profiler_db, diag);
  if (!db.ok()) return false;
  for (const char* t : {"MSTX_EVENTS", "TASK", "STRING_IDS"})
    if (!db.has_table(t)) {
      diag.warn(paths.profiler_db, 0, std::string("no table ") + t,
                "this rank gets no StepTaskInfo (no mstx forward/backward marks)");
      return false;
    }
  frame::Frame rows;
  if (!db.query(kQuery, {0, std::numeric_limits<int64_t>::max()}, rows, "MSTX_EVENTS", diag))
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
  auto& type = out.add("type");
  for (const frame::Cell& n : name.cells)
    type.push_back(frame::Cell::integer(n.str() == "FP" ? 0 : 1));
  return true;
}

// The pipeline type META_DATA's pp_info names ("" when it names none).
std::string pp_type(const RankDbPaths& paths, io::Diagnostics& diag) {
  RankDb db(paths.profiler_db, diag);
  if (!db.ok() || !db.has_table("META_DATA")) return "";
  frame::Frame rows;
  io::Diagnostics quiet;
  if (!db.query("SELECT lower(json_extract(value, '$.pp_type')) FROM META_DATA WHERE name = "
                "'pp_info' AND json_valid(value)",
                {}, rows, "META_DATA", quiet) ||
      rows.rows() == 0)
    return "";
  return rows.columns[0].cells[0].str();
}

}  // namespace

const char* pass_name(const std::string& msg) {
  std::string lower(msg);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("forward") != std::string::npos ? "FP" : "BP";
}

bool PPChart::map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const {
  if (pp_type(paths, diag) == "dualpipev") {
    diag.error(paths.profiler_db, 0, "pp_info names a DualPipeV pipeline",
               "its micro-batch naming is not implemented in clusterscope yet; use "
               "msprof-analyze's pp_chart for this job");
    return false;
  }
  // As msprof-analyze: mstx2commop first (a rank without COMMUNICATION_OP), then p2p_pairing
  // (on the database as it was: a converted rank has no tasks to pair), then the chart.
  frame::FrameSet converted;
  frame::Frame pairs, tasks;
  io::Diagnostics quiet;  // a rank without markers or send/receive still gets its chart
  const bool has_ops = mstx2commop::Mstx2Commop().map(paths, converted, quiet);
  const bool paired = p2p_pairing::pair_rank(paths, pairs, quiet);
  const bool charted = step_tasks(paths, tasks, diag);
  if (!has_ops && !paired && !charted) return false;
  if (has_ops) {
    out["op"] = std::move(converted.at("op"));
    out["strings"] = std::move(converted.at("strings"));
  }
  if (paired) out["pairs"] = std::move(pairs);
  if (charted) out["tasks"] = std::move(tasks);
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
  bool ok = true;
  for (const auto& p : parts) {
    if (!p.used) continue;
    const auto pairs = p.frames.find("pairs");
    const auto tasks = p.frames.find("tasks");
    ok = p2p_pairing::write_rank_copy(
             out, dir_name(), p.frames.at("source").columns[0].cells[0].str(),
             [&](const std::string& tmp, const std::string& shown) {
               if (p.frames.count("op") &&
                   !mstx2commop::write_communication_op(tmp, p.frames, shown, diag))
                 return false;
               return (pairs == p.frames.end() ||
                       p2p_pairing::add_connection_ids(tmp, pairs->second, shown, diag)) &&
                      (tasks == p.frames.end() ||
                       write_frame_sqlite(tasks->second, tmp, "StepTaskInfo", diag, 1));
             },
             diag) &&
         ok;
  }
  return ok;
}

}  // namespace cs::recipes::pp_chart
