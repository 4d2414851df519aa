#include "msprof_analyze/recipes/calibrate_npu_gpu/calibrate_npu_gpu.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "msprof_analyze/recipes/calibrate_npu_gpu/module_compare.h"
#include "msprof_analyze/recipes/frame_workbook.h"
#include "msprof_analyze/recipes/frame_writers.h"
#include "msprof_analyze/recipes/module_statistic/module_statistic.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"

namespace cs::recipes::calibrate_npu_gpu {

std::string CalibrateNpuGpu::set_args(const std::map<std::string, std::string>& args) {
  auto it = args.find("baseline_profiling_path");
  if (it == args.end() || it->second.empty())
    return "calibrate_npu_gpu needs --baseline_profiling_path FILE: the GPU job's Nsight Systems "
           "SQLite export (nsys export --type sqlite report.nsys-rep)";
  baseline_ = it->second;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(baseline_, ec))
    return "--baseline_profiling_path " + baseline_ +
           ": no such file \u2014 give the GPU job's Nsight Systems SQLite export (nsys export "
           "--type sqlite report.nsys-rep)";
  if (auto f = args.find("fuzzy_threshold"); f != args.end()) {
    char* end = nullptr;
    const double v = std::strtod(f->second.c_str(), &end);
    if (f->second.empty() || end != f->second.c_str() + f->second.size() || !std::isfinite(v))
      return "--fuzzy_threshold must be a number, e.g. 0.8 (0 turns fuzzy matching off)";
    fuzzy_ = v != 0;
  }
  if (auto d = args.find("dump_intermediate_results"); d != args.end())
    dump_intermediate_ = d->second == "1" || d->second == "true";
  io::Diagnostics diag;
  if (!read_gpu_profile(baseline_, gpu_, diag))
    return diag.items().empty() ? baseline_ + ": cannot be read" : diag.items().front().to_string();
  return "";
}

bool CalibrateNpuGpu::map(const RankDbPaths& paths, frame::FrameSet& out,
                          io::Diagnostics& diag) const {
  auto device = gpu_.find(paths.rank);
  if (device == gpu_.end() || device->second.empty()) {
    diag.warn(baseline_, 0,
              "no GPU kernel inside a module range on device " + std::to_string(paths.rank),
              "rank " + std::to_string(paths.rank) +
                  " is not compared (msprof-analyze pairs NPU rank N with GPU device N)");
    return false;
  }
  // The NPU side: module_statistic's rows for this rank.
  frame::FrameSet npu_set;
  if (!module_statistic::ModuleStatistic().map(paths, npu_set, diag)) return false;
  const frame::Frame& f = npu_set.at("rows");
  std::vector<NpuStat> npu;
  for (size_t r = 0; r < f.rows(); ++r)
    npu.push_back({f.columns[0].cells[r].str(), f.columns[1].cells[r].str(),
                   f.columns[2].cells[r].str(), f.columns[3].cells[r].str(),
                   f.columns[4].cells[r].num(), f.columns[5].cells[r].num(),
                   f.columns[6].cells[r].i()});
  const std::vector<OpRow> npu_rows = aggregate_npu(npu);
  const std::vector<OpRow> gpu_rows = aggregate_gpu(device->second);
  out["compare"] = compare_frame(gpu_rows, npu_rows, fuzzy_);
  if (dump_intermediate_) {
    out["npu"] = profile_frame(npu_rows);
    out["gpu"] = profile_frame(gpu_rows);
  }
  return true;
}

namespace {

// msprof-analyze's export(): the widths of the workbooks' columns by title, in its map's order.
using Widths = std::vector<std::pair<std::string, double>>;
const Widths kCompareWidths = {{"(NPU) Parent Module", 20},
                               {"(NPU) Module", 20},
                               {"(GPU) Parent Module", 20},
                               {"(GPU) Module", 20},
                               {"Match Type", 10},
                               {"(NPU) Op Name", 20},
                               {"(NPU) Op Count", 10},
                               {"(NPU) Kernel List", 40},
                               {"(NPU) Total Kernel Duration(us)", 10},
                               {"(NPU) Total Kernel Duration(%)", 10},
                               {"(NPU) Avg Kernel Duration(us)", 10},
                               {"(GPU) Op Name", 20},
                               {"(GPU) Op Count", 10},
                               {"(GPU) Kernel List", 40},
                               {"(GPU) Total Kernel Duration(us)", 10},
                               {"(GPU) Total Kernel Duration(%)", 10},
                               {"(GPU) Avg Kernel Duration(us)", 10},
                               {"(NPU/GPU) Module Time Ratio", 10},
                               {"(NPU-GPU,us) Module Time Diff", 10}};
const Widths kProfileWidths = {{"Parent Module", 20},
                               {"Module", 20},
                               {"Op Name", 20},
                               {"Op Count", 10},
                               {"Kernel List", 40},
                               {"Total Kernel Duration(us)", 10},
                               {"Total Kernel Duration(%)", 10},
                               {"Avg Kernel Duration(us)", 10}};

// The layout of one workbook of `f`: the columns named in `merge` merged, the widths of the
// entries of `widths` (those the frame has, for the per-side workbooks, as msprof-analyze filters
// them) given to columns 0, 1, ... in order, the header 27 points high.
WorkbookLayout layout(const frame::Frame& f, const std::vector<std::string>& merge,
                      const Widths& widths, bool only_present) {
  WorkbookLayout l;
  for (size_t c = 0; c < f.columns.size(); ++c)
    for (const std::string& name : merge)
      if (f.columns[c].name == name) l.merge_columns.push_back(c);
  for (const auto& [name, width] : widths) {
    bool present = false;
    for (const frame::FrameColumn& c : f.columns) present = present || c.name == name;
    if (present || !only_present) l.widths.push_back(width);
  }
  l.header_height = 27;
  return l;
}

}  // namespace

bool CalibrateNpuGpu::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                             io::Diagnostics& diag) const {
  if (out.export_type != ExportType::kDb) {  // per rank: [npu_report, gpu_report,] compare report
    const std::string dir = out.dir(dir_name()) + "/";
    bool ok = true;
    for (const RankPartial& p : parts) {
      if (!p.used) continue;
      const std::string rank = std::to_string(p.rank);
      for (const char* side : {"npu", "gpu"}) {
        auto it = p.frames.find(side);
        if (it == p.frames.end() || it->second.rows() == 0) continue;
        ok = write_frame_workbook(
                 it->second, layout(it->second, {"Parent Module", "Module"}, kProfileWidths, true),
                 dir + side + "_report_" + rank + ".xlsx", diag) &&
             ok;
      }
      auto it = p.frames.find("compare");
      if (it == p.frames.end() || it->second.rows() == 0) continue;
      ok = write_frame_workbook(
               it->second,
               layout(it->second,
                      {"(NPU) Parent Module", "(NPU) Module", "(GPU) Parent Module", "(GPU) Module",
                       "(NPU/GPU) Module Time Ratio", "(NPU-GPU,us) Module Time Diff"},
                      kCompareWidths, false),
               dir + "compare_profile_report_" + rank + ".xlsx", diag) &&
           ok;
    }
    return ok;
  }
  // A table per rank and side, into one database read and written once (frame_writers.h).
  std::vector<std::pair<std::string, const frame::Frame*>> tables;
  for (const RankPartial& p : parts) {
    if (!p.used) continue;
    const std::string rank = std::to_string(p.rank);
    for (const auto& [key, table] : {std::pair{"npu", "NPUProfileRank"},
                                     {"gpu", "GPUProfileRank"},
                                     {"compare", "CompareProfileReportRank"}}) {
      auto it = p.frames.find(key);
      if (it == p.frames.end() || it->second.rows() == 0) continue;  // as dump_recipe_frame
      tables.emplace_back(table + rank, &it->second);
    }
  }
  return write_frames_sqlite(tables, out.db_path(dir_name()), diag, out.threads);
}

}  // namespace cs::recipes::calibrate_npu_gpu
