#include "msprof_analyze/recipes/operator_mfu/operator_mfu.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "frame/frame_ops.h"
#include "frame/pandas_math.h"
#include "io/py_format.h"
#include "msprof_analyze/recipes/frame_workbook.h"
#include "msprof_analyze/recipes/module_statistic/module_queries.h"
#include "msprof_analyze/recipes/module_statistic/module_tree.h"
#include "msprof_analyze/recipes/operator_mfu/kernel_mfu.h"
#include "msprof_analyze/recipes/operator_mfu/pandas_times.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"

namespace cs::recipes::operator_mfu {

namespace {

using frame::Cell;
using module_statistic::KernelRow;

// Recorded FLOPs: every mstx event in the domain "mfu_flops".
constexpr const char* kFlops = R"(
SELECT m.startNs, m.endNs, msg.value
FROM MSTX_EVENTS AS m
     LEFT JOIN STRING_IDS AS msg ON m.message = msg.id
     LEFT JOIN STRING_IDS AS domain ON m.domainId = domain.id
WHERE domain.value = 'mfu_flops'
ORDER BY m.startNs)";

// Every compute kernel with its task's times and its shapes and input types.
constexpr const char* kShapes = R"(
SELECT (SELECT value FROM STRING_IDS WHERE id = c.name),
       (SELECT value FROM STRING_IDS WHERE id = c.inputShapes),
       (SELECT value FROM STRING_IDS WHERE id = c.inputDataTypes),
       (SELECT value FROM STRING_IDS WHERE id = c.outputShapes),
       t.startNs, t.endNs, t.endNs - t.startNs
FROM COMPUTE_TASK_INFO AS c JOIN TASK AS t ON c.globalTaskId = t.globalTaskId
ORDER BY t.startNs)";

// A text cell's text (numbers as text); nullopt for NULL.
std::optional<std::string> text(const Cell& v) {
  switch (v.kind) {
    case Cell::Kind::kNull:
      return std::nullopt;
    case Cell::Kind::kInt:
      return std::to_string(v.i());
    case Cell::Kind::kReal:
      return io::py_repr(v.num());
    case Cell::Kind::kText:
      return v.str();
  }
  return std::nullopt;
}

Cell cell(const std::optional<std::string>& s) {
  return s ? Cell::text(*s) : Cell::null();
}

// Python's str.strip('"\'').
std::optional<std::string> unquote(std::optional<std::string> s) {
  if (!s) return s;
  const size_t b = s->find_first_not_of("\"'");
  if (b == std::string::npos) return std::string();
  return s->substr(b, s->find_last_not_of("\"'") - b + 1);
}

// A kernel row of the recipe and the MFU the left join gave it (-1: none).
struct Merged {
  const OpKernel* k;
  const KernelMfu* mfu;  // nullptr: no MFU
};

}  // namespace

bool OperatorMfu::map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const {
  RankDb db(paths.profiler_db, diag);
  if (!db.ok()) return false;
  const std::string skip = "this rank gets no operator MFU";
  for (const char* t : {"STRING_IDS", "PYTORCH_API", "CONNECTION_IDS"})
    if (!db.has_table(t)) {
      diag.warn(paths.profiler_db, 0, std::string("no table ") + t,
                skip +
                    " (it maps kernels to framework ops through torch_npu's PYTORCH_API and "
                    "CONNECTION_IDS, which MindSpore's and CANN msprof's databases do not have; "
                    "msprof-analyze finds no kernel data there either)");
      return false;
    }
  // The kernels of the three tables with their framework ops, table after table; their times
  // as pandas reads the three tables concatenated (pandas_times.h), the compute kernels' also
  // alone (msprof-analyze's MFU step reads that table by itself).
  std::vector<frame::Frame> tables(3);
  for (size_t t = 0; t < 3; ++t)
    if (const char* name = module_statistic::kKernelTables[t];
        db.has_table(name) &&
        !db.query(module_statistic::kernel_query(name), {}, tables[t], name, diag))
      tables[t] = frame::Frame{};
  auto read_kernels = [](const std::vector<const frame::Frame*>& frames) {
    std::vector<int64_t> cols[6];
    for (size_t c : {1, 2, 4, 5}) cols[c] = pandas_times(frames, c);
    std::vector<OpKernel> rows;
    for (const frame::Frame* f : frames)
      for (size_t r = 0; r < f->rows(); ++r) {
        const size_t i = rows.size();
        rows.push_back({text(f->columns[0].cells[r]), cols[1][i], cols[2][i],
                        text(f->columns[3].cells[r]).value_or(""), cols[4][i], cols[5][i]});
      }
    return rows;
  };
  std::vector<const frame::Frame*> all;
  for (const frame::Frame& f : tables)
    if (f.rows() > 0) all.push_back(&f);
  const std::vector<OpKernel> kernels = read_kernels(all);
  const std::vector<OpKernel> compute =
      tables[0].rows() > 0 ? read_kernels({&tables[0]}) : std::vector<OpKernel>{};
  if (kernels.empty()) {
    diag.warn(paths.profiler_db, 0, "no kernel linked to a framework op (PYTORCH_API)", skip);
    return false;
  }
  std::vector<module_statistic::ModuleRange> modules;
  frame::Frame rows;
  if (db.has_table("MSTX_EVENTS") &&
      db.query(module_statistic::kModulesSql, {}, rows, "MSTX_EVENTS", diag)) {
    const auto start = pandas_times({&rows}, 0), end = pandas_times({&rows}, 1);
    for (size_t r = 0; r < rows.rows(); ++r)
      modules.push_back({start[r], end[r], text(rows.columns[2].cells[r]).value_or(""), false});
  }

  // Kernel MFU: the chip's peak, the kernels' shapes and the recorded FLOPs.
  std::vector<KernelMfu> mfu;
  ChipPeak chip;
  std::string problem;
  bool said = false;  // a warning already says why kernels get no MFU
  if (!read_chip_peak(paths.rank_dir, chip, problem)) {
    diag.warn(chip.file, 0, problem + ": no chip peak",
              "kernels get no MFU on this rank (keep the profiler's PROF_*/device_*/info.json.* "
              "with DeviceInfo's ai_core_num and aic_frequency)");
    said = true;
  } else if (db.has_table("COMPUTE_TASK_INFO") && db.has_table("TASK") &&
             db.has_table("MSTX_EVENTS")) {
    std::vector<KernelShape> shapes;
    std::vector<FlopsRange> ranges;
    frame::Frame s, f;
    if (db.query(kShapes, {}, s, "COMPUTE_TASK_INFO", diag)) {
      const auto start = pandas_times({&s}, 4), end = pandas_times({&s}, 5),
                 duration = pandas_times({&s}, 6);
      for (size_t r = 0; r < s.rows(); ++r)
        shapes.push_back({text(s.columns[0].cells[r]), start[r], end[r], duration[r],
                          unquote(text(s.columns[1].cells[r])), text(s.columns[2].cells[r]),
                          unquote(text(s.columns[3].cells[r]))});
    }
    if (db.query(kFlops, {}, f, "MSTX_EVENTS", diag)) {
      const auto start = pandas_times({&f}, 0), end = pandas_times({&f}, 1);
      for (size_t r = 0; r < f.rows(); ++r)
        ranges.push_back({start[r], end[r], text(f.columns[2].cells[r])});
    }
    if (ranges.empty())
      diag.warn(paths.profiler_db, 0, "no recorded FLOPs (mstx domain \"mfu_flops\")",
                "kernels get no MFU on this rank (profile with with_flops=True and mstx on)");
    said = ranges.empty();
    MfuSkips skips;
    mfu = kernel_mfu(compute, shapes, ranges, chip, skips);
    said = said || skips.malformed > 0 || !skips.unsupported.empty();
    if (skips.malformed > 0)
      diag.warn(paths.profiler_db, 0,
                std::to_string(skips.malformed) +
                    " FLOPs records (mstx domain \"mfu_flops\") are not \"<FLOPs>-<name>\" "
                    "with positive FLOPs",
                "they are skipped (as msprof-analyze does)");
    if (!skips.unsupported.empty())
      diag.warn(paths.profiler_db, 0,
                std::to_string(skips.unsupported.size()) +
                    " FLOPs records skipped: their first kernel's input data type has no peak",
                "only FLOAT, FLOAT16, BF16 and INT8 inputs have one (msprof-analyze stops the "
                "whole run on such a record)");
  } else {
    diag.warn(paths.profiler_db, 0, "no table COMPUTE_TASK_INFO, TASK or MSTX_EVENTS",
              "kernels get no MFU on this rank");
    said = true;
  }

  // The left join of the kernels with their MFU rows (a kernel in two records: twice).
  std::map<std::tuple<std::optional<std::string>, int64_t, int64_t>, std::vector<size_t>> by_key;
  for (size_t i = 0; i < mfu.size(); ++i)
    by_key[{mfu[i].kernel, mfu[i].kernel_ts, mfu[i].kernel_end}].push_back(i);
  std::vector<Merged> merged;
  bool unmatched = false;
  for (const OpKernel& k : kernels) {
    auto it = by_key.find({k.kernel, k.kernel_ts, k.kernel_end});
    if (it == by_key.end()) {
      merged.push_back({&k, nullptr});
      unmatched = true;
      continue;
    }
    for (size_t i : it->second) merged.push_back({&k, &mfu[i]});
  }

  // OperatorMFU rows. pandas makes the duration and FLOPs columns float when the join left a
  // kernel without MFU (NaN), or when a record's FLOPs did not fit int64.
  frame::Frame kf;
  auto& rank = kf.add("rank_id");
  auto& op = kf.add("op_name");
  auto& kname = kf.add("kernel_name");
  auto& kstart = kf.add("kernel_start(ns)");
  auto& kend = kf.add("kernel_end(ns)");
  auto& kdur = kf.add("kernel_duration(ns)");
  auto& kmfu = kf.add("mfu");
  auto& actual = kf.add("actual_tflops");
  auto& peak = kf.add("chip_peak_tflops");
  auto& flops = kf.add("flops");
  auto& fname = kf.add("flops_op_name");
  auto& ins = kf.add("input_shapes");
  auto& outs = kf.add("output_shapes");
  bool flops_real = unmatched;
  for (const KernelMfu& m : mfu) flops_real = flops_real || m.flops.real;
  for (const Merged& m : merged) {
    if (!m.mfu) continue;
    rank.push_back(Cell::integer(paths.rank));
    op.push_back(Cell::text(m.k->op));
    kname.push_back(cell(m.k->kernel));
    kstart.push_back(Cell::integer(m.k->kernel_ts));
    kend.push_back(Cell::integer(m.k->kernel_end));
    kdur.push_back(unmatched ? Cell::real(static_cast<double>(m.mfu->duration))
                             : Cell::integer(m.mfu->duration));
    kmfu.push_back(Cell::real(frame::numpy_round(m.mfu->mfu, 4)));
    actual.push_back(Cell::real(frame::numpy_round(m.mfu->actual_tflops, 2)));
    peak.push_back(Cell::real(frame::numpy_round(m.mfu->peak / 1e12, 2)));
    flops.push_back(flops_real ? Cell::real(m.mfu->flops.value())
                               : Cell::integer(m.mfu->flops.flops));
    fname.push_back(Cell::text(m.mfu->flops.name));
    ins.push_back(cell(m.mfu->input_shapes));
    outs.push_back(cell(m.mfu->output_shapes));
  }
  if (kf.rows() == 0 && !said)
    diag.warn(paths.profiler_db, 0, "no kernel with an MFU", "this rank has no OperatorMFU rows");

  // ModuleMFU rows: the module tree over the joined kernel rows.
  frame::Frame mf;
  if (!modules.empty()) {
    std::vector<KernelRow> tree_rows;
    std::vector<double> row_mfu;
    for (const Merged& m : merged) {
      tree_rows.push_back({m.k->kernel.value_or(""), m.k->kernel_ts, m.k->kernel_end, m.k->op,
                           m.k->op_ts, m.k->op_end});
      row_mfu.push_back(m.mfu ? m.mfu->mfu : -1.0);
    }
    auto& r = mf.add("rank_id");
    auto& parent = mf.add("parent_module");
    auto& module = mf.add("module");
    auto& mop = mf.add("op_name");
    auto& list = mf.add("kernel_list");
    auto& total = mf.add("total_kernel_duration(ns)");
    auto& avg = mf.add("avg_kernel_duration(ns)");
    auto& count = mf.add("op_count");
    auto& avg_mfu = mf.add("avg_mfu");
    for (const auto& s : module_statistic::module_statistic(modules, tree_rows, true)) {
      r.push_back(Cell::integer(paths.rank));
      parent.push_back(Cell::text(s.parent));
      module.push_back(Cell::text(s.module));
      mop.push_back(Cell::text(s.op));
      list.push_back(Cell::text(s.kernels));
      total.push_back(Cell::real(s.total_ns));
      avg.push_back(Cell::real(s.avg_ns));
      count.push_back(Cell::integer(s.count));
      avg_mfu.push_back(Cell::text(average_mfu(s.occurrences, row_mfu)));
    }
  }
  if (kf.rows() == 0 && mf.rows() == 0) return false;
  out["kernels"] = std::move(kf);
  out["modules"] = std::move(mf);
  return true;
}

namespace {

// The frame without its avg_mfu column (the last) when no row has an MFU: msprof-analyze leaves
// the column out then.
frame::Frame drop_empty_mfu(frame::Frame f) {
  bool any = false;
  for (const Cell& c : f.columns.back().cells) any = any || !c.str().empty();
  if (!any) f.columns.pop_back();
  return f;
}

}  // namespace

bool OperatorMfu::write_workbooks(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                                  io::Diagnostics& diag) const {
  // Titles and widths of msprof-analyze's save_excel (widths by position in its width map).
  WorkbookLayout kernel{.header = {"Rank ID", "Op Name", "Kernel Name", "Kernel Start(ns)",
                                   "Kernel End(ns)", "Kernel Duration(ns)", "MFU"},
                        .merge_columns = {},
                        .widths = {50, 40, 10, 15},
                        .header_height = 0};
  WorkbookLayout module{
      .header = {"Rank ID", "Parent Module", "Module", "Op Name", "Kernel List",
                 "Total Kernel Duration(ns)", "Avg Kernel Duration(ns)", "Op Count", "Avg MFU"},
      .merge_columns = {1, 2},
      .widths = {40, 40, 40, 50, 10, 10, 10, 10},
      .header_height = 27};
  const std::string dir = out.dir(dir_name()) + "/";
  bool ok = true;
  for (const RankPartial& p : parts) {
    if (!p.used) continue;
    const std::string rank = std::to_string(p.rank);
    const frame::Frame& k = p.frames.at("kernels");
    if (k.rows() > 0)
      ok = write_frame_workbook(k, kernel, dir + "operator_mfu_kernel_" + rank + ".xlsx", diag) &&
           ok;
    const frame::Frame& m = p.frames.at("modules");
    if (m.rows() > 0)
      ok = write_frame_workbook(drop_empty_mfu(m), module,
                                dir + "operator_mfu_module_" + rank + ".xlsx", diag) &&
           ok;
  }
  return ok;
}

bool OperatorMfu::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                         io::Diagnostics& diag) const {
  if (out.export_type != ExportType::kDb) return write_workbooks(parts, out, diag);
  const auto kernels = used_frames(parts, "kernels", true);
  const auto modules = used_frames(parts, "modules", true);
  bool ok = true;
  if (!kernels.empty())
    ok = dump_recipe_frame(frame::concat_frames(kernels, frame::column_union(kernels)), out,
                           dir_name(), "", "OperatorMFU", diag);
  if (!modules.empty()) {
    // No MFU on any row: msprof-analyze leaves the avg_mfu column out.
    const frame::Frame all =
        drop_empty_mfu(frame::concat_frames(modules, frame::column_union(modules)));
    ok = dump_recipe_frame(all, out, dir_name(), "", "ModuleMFU", diag) && ok;
  }
  return ok;
}

}  // namespace cs::recipes::operator_mfu
