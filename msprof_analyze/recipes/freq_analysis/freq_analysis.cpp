#include "msprof_analyze/recipes/freq_analysis/freq_analysis.h"

#include <algorithm>
#include <string>

#include "frame/frame_ops.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"

namespace cs::recipes::freq_analysis {

namespace {

constexpr double kCommonFreq = 1800;  // MHz: the AI Core's working frequency
constexpr double kFreeFreq = 800;     // MHz: the frequency it drops to when idle

}  // namespace

FreqVerdict judge_frequencies(const std::vector<double>& f) {
  if (f.size() == 1 && f[0] == kCommonFreq) return FreqVerdict::kNormal;
  if (f.size() == 2 && f[0] == kFreeFreq && f[1] == kCommonFreq) return FreqVerdict::kIdle;
  return FreqVerdict::kAbnormal;
}

bool FreqAnalysis::map(const RankDbPaths& paths, frame::FrameSet& out,
                       io::Diagnostics& diag) const {
  recipes::RankDb db(paths.profiler_db, diag);
  if (!db.ok()) return false;
  if (!tables_present(db, paths.profiler_db, {"AICORE_FREQ", "RANK_DEVICE_MAP"}, diag))
    return false;
  frame::Frame freq, rank;
  if (!db.query("select freq from AICORE_FREQ", {}, freq, "AICORE_FREQ", diag) ||
      !db.query("select rankId from RANK_DEVICE_MAP", {}, rank, "RANK_DEVICE_MAP", diag))
    return false;
  if (freq.rows() == 0 || rank.rows() == 0) {
    diag.warn(paths.profiler_db, 0,
              std::string("no rows in ") + (freq.rows() == 0 ? "AICORE_FREQ" : "RANK_DEVICE_MAP"),
              "this rank is skipped (it has no data for this recipe)");
    return false;
  }
  // The distinct frequencies, ascending (a REAL anywhere makes them all floats, as in pandas).
  auto& cells = freq.columns[0].cells;
  bool real = false;
  for (const frame::Cell& c : cells) real = real || c.kind == frame::Cell::Kind::kReal;
  std::sort(cells.begin(), cells.end(), [](const frame::Cell& a, const frame::Cell& b) {
    return frame::compare_cells(a, b) < 0;
  });
  cells.erase(std::unique(cells.begin(), cells.end(),
                          [](const frame::Cell& a, const frame::Cell& b) {
                            return frame::compare_cells(a, b) == 0;
                          }),
              cells.end());
  if (real)
    for (frame::Cell& c : cells) c = frame::Cell::real(c.num());
  rank.columns[0].cells.resize(1);
  out["freq"] = std::move(freq);
  out["rank"] = std::move(rank);
  return true;
}

bool FreqAnalysis::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                          io::Diagnostics& diag) const {
  if (out.export_type != ExportType::kDb) {
    diag.warn(out.cluster_output_dir, 0,
              "freq_analysis writes nothing for --export_type text (as msprof-analyze)",
              "run it with --export_type db for the FreeFrequencyRanks and "
              "AbnormalFrequencyRanks tables");
    return true;
  }
  std::vector<frame::Cell> idle;
  frame::Frame abnormal;
  auto& ids = abnormal.add("rankId");
  auto& text = abnormal.add("aicoreFrequency");
  abnormal.index_columns = 1;
  for (const auto& p : parts) {
    if (!p.used) continue;
    const auto& cells = p.frames.at("freq").columns[0].cells;
    const frame::Cell rank = p.frames.at("rank").columns[0].cells[0];
    std::vector<double> f;
    std::string list = "[";
    for (const frame::Cell& c : cells) {
      f.push_back(c.num());
      list += (list.size() > 1 ? ", " : "") + frame::csv_cell(c, c.kind == frame::Cell::Kind::kReal
                                                                     ? frame::Dtype::kFloat64
                                                                     : frame::Dtype::kInt64);
    }
    switch (judge_frequencies(f)) {
      case FreqVerdict::kNormal:
        break;
      case FreqVerdict::kIdle:
        idle.push_back(rank);
        break;
      case FreqVerdict::kAbnormal:
        ids.push_back(rank);
        text.push_back(frame::Cell::text(list + "]"));
    }
  }
  std::stable_sort(idle.begin(), idle.end(), [](const frame::Cell& a, const frame::Cell& b) {
    return frame::compare_cells(a, b) < 0;
  });
  frame::Frame free;
  free.add("rankId").cells = idle;
  free.add("aicoreFrequency").cells.assign(idle.size(), frame::Cell::text("[800, 1800]"));
  free.index_columns = 1;
  return dump_recipe_frame(free, out, dir_name(), "", "FreeFrequencyRanks", diag) &&
         dump_recipe_frame(abnormal, out, dir_name(), "", "AbnormalFrequencyRanks", diag);
}

}  // namespace cs::recipes::freq_analysis
