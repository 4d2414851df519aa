#include "msprof_analyze/recipes/module_statistic/module_statistic.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "frame/frame_ops.h"
#include "msprof_analyze/recipes/module_statistic/module_tree.h"
#include "msprof_analyze/recipes/module_statistic/module_workbook.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"

namespace cs::recipes::module_statistic {

namespace {

constexpr const char* kModules = R"(
SELECT m.startNs, m.endNs, name.value
FROM MSTX_EVENTS AS m
     LEFT JOIN STRING_IDS AS name ON m.message = name.id
     LEFT JOIN STRING_IDS AS domain ON m.domainId = domain.id
WHERE m.eventType = 2 AND domain.value = 'Module'
ORDER BY m.startNs)";

// The device rows of a compute table (COMPUTE_TASK_INFO, COMMUNICATION_SCHEDULE_TASK_INFO) or of
// COMMUNICATION_OP, each with the framework op that launched it.
std::string kernel_query(const std::string& table) {
  const std::string tasks =
      table == "COMMUNICATION_OP"
          ? "SELECT s.value AS name, c.startNs, c.endNs, conn.id AS api_conn_id "
            "FROM COMMUNICATION_OP AS c JOIN STRING_IDS AS s ON s.id = c.opType "
            "JOIN CONNECTION_IDS AS conn ON conn.connectionId = c.connectionId"
          : "SELECT s.value AS name, t.startNs, t.endNs, conn.id AS api_conn_id FROM " + table +
                " AS c LEFT JOIN TASK AS t ON c.globalTaskId = t.globalTaskId "
                "LEFT JOIN STRING_IDS AS s ON s.id = c.name "
                "LEFT JOIN CONNECTION_IDS AS conn ON conn.connectionId = t.connectionId";
  return "WITH tc AS (" + tasks +
         ") SELECT tc.name, tc.startNs AS kernel_ts, tc.endNs AS kernel_end, op.value AS op_name, "
         "api.startNs AS op_ts, api.endNs AS op_end FROM tc "
         "JOIN PYTORCH_API AS api ON tc.api_conn_id = api.connectionId "
         "JOIN STRING_IDS AS op ON api.name = op.id ORDER BY op_ts, kernel_ts";
}

// Forward ops and the backward ops autograd linked to them (ids sharing a connectionId).
constexpr const char* kFwdBwd = R"(
SELECT fwd_s.value, fwd.startNs, fwd.endNs, bwd.startNs, bwd.endNs
FROM (SELECT connectionId, MIN(id) AS lo, MAX(id) AS hi FROM CONNECTION_IDS
      GROUP BY connectionId HAVING COUNT(*) > 1) AS c
     LEFT JOIN PYTORCH_API AS fwd ON fwd.connectionId = c.lo
     LEFT JOIN STRING_IDS AS fwd_s ON fwd_s.id = fwd.name
     LEFT JOIN PYTORCH_API AS bwd ON bwd.connectionId = c.hi
WHERE fwd_s.value NOT LIKE 'Enqueue%' AND fwd_s.value NOT LIKE 'Dequeue%'
ORDER BY c.connectionId)";

// A time as msprof-analyze reads it (pd.to_numeric, errors coerced, NaN to 0, as int64):
// torch_npu stores PYTORCH_API's times as text.
int64_t ns(const frame::Frame& f, size_t c, size_t r) {
  const frame::Cell& v = f.columns[c].cells[r];
  if (v.kind == frame::Cell::Kind::kInt) return v.i();
  if (v.kind == frame::Cell::Kind::kReal)
    return std::isfinite(v.num()) ? static_cast<int64_t>(v.num()) : 0;
  const std::string& t = v.str();
  int64_t i = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), i);
  if (ec == std::errc() && end == t.data() + t.size() && !t.empty()) return i;
  char* stop = nullptr;
  const double d = t.empty() ? 0.0 : std::strtod(t.c_str(), &stop);
  return !t.empty() && stop == t.c_str() + t.size() && std::isfinite(d) ? static_cast<int64_t>(d)
                                                                        : 0;
}

}  // namespace

bool ModuleStatistic::map(const RankDbPaths& paths, frame::FrameSet& out,
                          io::Diagnostics& diag) const {
  RankDb db(paths.profiler_db, diag);
  if (!db.ok()) return false;
  for (const char* t : {"MSTX_EVENTS", "STRING_IDS", "PYTORCH_API", "CONNECTION_IDS"})
    if (!db.has_table(t)) {
      diag.warn(paths.profiler_db, 0, std::string("no table ") + t,
                "this rank gets no module statistic (profile with mstx module ranges)");
      return false;
    }
  frame::Frame rows;
  if (!db.query(kModules, {}, rows, "MSTX_EVENTS", diag)) return false;
  std::vector<ModuleRange> modules;
  for (size_t r = 0; r < rows.rows(); ++r)
    modules.push_back({ns(rows, 0, r), ns(rows, 1, r), rows.columns[2].cells[r].str(), false});
  if (modules.empty()) {
    diag.warn(paths.profiler_db, 0, "no mstx range in the domain \"Module\"",
              "this rank gets no module statistic");
    return false;
  }
  std::vector<KernelRow> kernels;
  for (const char* t :
       {"COMPUTE_TASK_INFO", "COMMUNICATION_OP", "COMMUNICATION_SCHEDULE_TASK_INFO"}) {
    if (!db.has_table(t)) continue;
    frame::Frame k;
    if (!db.query(kernel_query(t), {}, k, t, diag)) return false;
    for (size_t r = 0; r < k.rows(); ++r)
      kernels.push_back({k.columns[0].cells[r].str(), ns(k, 1, r), ns(k, 2, r),
                         k.columns[3].cells[r].str(), ns(k, 4, r), ns(k, 5, r)});
  }
  if (kernels.empty()) {
    diag.warn(paths.profiler_db, 0, "no kernel linked to a framework op (PYTORCH_API)",
              "this rank gets no module statistic");
    return false;
  }
  frame::Frame links;
  if (!db.query(kFwdBwd, {}, links, "CONNECTION_IDS", diag)) return false;
  std::vector<FwdBwdLink> fwd_bwd;
  for (size_t r = 0; r < links.rows(); ++r)
    fwd_bwd.push_back({links.columns[0].cells[r].str(), ns(links, 1, r), ns(links, 2, r),
                       ns(links, 3, r), ns(links, 4, r)});
  std::vector<ModuleRange> backward = backward_modules(modules, fwd_bwd);
  modules.insert(modules.end(), backward.begin(), backward.end());

  const std::vector<ModuleStat> stats = module_statistic(modules, kernels);
  if (stats.empty()) {
    diag.warn(paths.profiler_db, 0, "no framework op inside an mstx module range",
              "this rank gets no module statistic");
    return false;
  }
  frame::Frame f;
  auto& parent = f.add("parentModule");
  auto& module = f.add("module");
  auto& op = f.add("opName");
  auto& list = f.add("kernelList");
  auto& total = f.add("totalKernelDuration(ns)");
  auto& avg = f.add("avgKernelDuration(ns)");
  auto& count = f.add("opCount");
  auto& rank = f.add("rankID");
  for (const ModuleStat& s : stats) {
    parent.push_back(frame::Cell::text(s.parent));
    module.push_back(frame::Cell::text(s.module));
    op.push_back(frame::Cell::text(s.op));
    list.push_back(frame::Cell::text(s.kernels));
    total.push_back(frame::Cell::real(s.total_ns));
    avg.push_back(frame::Cell::real(s.avg_ns));
    count.push_back(frame::Cell::integer(s.count));
    rank.push_back(frame::Cell::integer(paths.rank));
  }
  out["rows"] = std::move(f);
  return true;
}

bool ModuleStatistic::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                             io::Diagnostics& diag) const {
  if (out.export_type != ExportType::kDb) {  // one workbook per rank (module_workbook.h)
    bool ok = true;
    for (const auto& p : parts)
      if (p.used && p.frames.at("rows").rows() > 0)
        ok = write_module_workbook(
                 p.frames.at("rows"),
                 out.dir(dir_name()) + "/module_statistic_" + std::to_string(p.rank) + ".xlsx",
                 diag) &&
             ok;
    return ok;
  }
  std::vector<const frame::Frame*> frames;
  for (const auto& p : parts)
    if (p.used) frames.push_back(&p.frames.at("rows"));
  if (frames.empty()) return true;
  return dump_recipe_frame(frame::concat_frames(frames, frame::column_union(frames)), out,
                           dir_name(), "", "ModuleStatistic", diag);
}

}  // namespace cs::recipes::module_statistic
