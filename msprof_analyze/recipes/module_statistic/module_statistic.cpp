#include "msprof_analyze/recipes/module_statistic/module_statistic.h"

#include <string>
#include <vector>

#include "frame/frame_ops.h"
#include "msprof_analyze/recipes/frame_workbook.h"
#include "msprof_analyze/recipes/module_statistic/module_queries.h"
#include "msprof_analyze/recipes/module_statistic/module_scan.h"
#include "msprof_analyze/recipes/module_statistic/module_tree.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"

namespace cs::recipes::module_statistic {

namespace {

int64_t ns(const frame::Frame& f, size_t c, size_t r) {
  return time_ns(f.columns[c].cells[r]);
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
  // Each query answered by its scan (module_scan.h) or by SQLite (answer_query).
  ModuleScan scan(db.database());
  std::vector<ModuleRange> modules;
  if (!answer_query(
          "module_statistic.modules", [&] { return scan.modules(modules); },
          [&] {
            frame::Frame rows;
            if (!db.query(kModulesSql, {}, rows, "MSTX_EVENTS", diag)) return false;
            for (size_t r = 0; r < rows.rows(); ++r)
              modules.push_back(
                  {ns(rows, 0, r), ns(rows, 1, r), rows.columns[2].cells[r].str(), false});
            return true;
          }))
    return false;
  if (modules.empty()) {
    diag.warn(paths.profiler_db, 0, "no mstx range in the domain \"Module\"",
              "this rank gets no module statistic");
    return false;
  }
  std::vector<KernelRow> kernels;
  for (const char* t : kKernelTables) {
    if (!db.has_table(t)) continue;
    if (!answer_query(
            "module_statistic.kernels", [&] { return scan.kernels(t, kernels); },
            [&] {
              frame::Frame k;
              if (!db.query(kernel_query(t), {}, k, t, diag)) return false;
              for (size_t r = 0; r < k.rows(); ++r)
                kernels.push_back({k.columns[0].cells[r].str(), ns(k, 1, r), ns(k, 2, r),
                                   k.columns[3].cells[r].str(), ns(k, 4, r), ns(k, 5, r)});
              return true;
            }))
      return false;
  }
  if (kernels.empty()) {
    diag.warn(paths.profiler_db, 0, "no kernel linked to a framework op (PYTORCH_API)",
              "this rank gets no module statistic");
    return false;
  }
  std::vector<FwdBwdLink> fwd_bwd;
  if (!answer_query(
          "module_statistic.links", [&] { return scan.links(fwd_bwd); },
          [&] {
            frame::Frame links;
            if (!db.query(kFwdBwdSql, {}, links, "CONNECTION_IDS", diag)) return false;
            for (size_t r = 0; r < links.rows(); ++r)
              fwd_bwd.push_back({links.columns[0].cells[r].str(), ns(links, 1, r), ns(links, 2, r),
                                 ns(links, 3, r), ns(links, 4, r)});
            return true;
          }))
    return false;
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
  if (out.export_type != ExportType::kDb) {  // one workbook per rank
    // msprof-analyze's save_excel: its titles, runs of equal Parent Module and of equal Module
    // merged, columns 40/40/40/50/10/10/10 characters wide, the header row 27 points high.
    const WorkbookLayout layout{
        .header = {"Parent Module", "Module", "Op Name", "Kernel List", "Total Kernel Duration(ns)",
                   "Avg Kernel Duration(ns)", "Op Count"},
        .merge_columns = {0, 1},
        .widths = {40, 40, 40, 50, 10, 10, 10},
        .header_height = 27};
    bool ok = true;
    for (const auto& p : parts) {
      if (!p.used || p.frames.at("rows").rows() == 0) continue;
      frame::Frame rows = p.frames.at("rows");
      rows.columns.pop_back();  // rankID: not in the workbook
      ok = write_frame_workbook(
               rows, layout,
               out.dir(dir_name()) + "/module_statistic_" + std::to_string(p.rank) + ".xlsx",
               diag) &&
           ok;
    }
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
