#include "msprof_analyze/recipes/cluster_time_compare_summary/cluster_time_compare_summary.h"

#include <filesystem>
#include <map>
#include <string>
#include <utility>

#include "frame/frame_ops.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"

namespace cs::recipes::cluster_time_compare_summary {

namespace {

namespace fs = std::filesystem;

const char* kTable = "ClusterTimeSummary";
const char* kColumns[] = {"rank",
                          "step",
                          "stepTime",
                          "computation",
                          "communicationNotOverlapComputation",
                          "communicationOverlapComputation",
                          "communication",
                          "free",
                          "communicationWaitStageTime",
                          "communicationTransmitStageTime",
                          "memory",
                          "memoryNotOverlapComputationCommunication"};

// Reads the table's known columns (those it has) from `db_path`; false with an error naming the
// file when it cannot be opened or has no such table.
bool read_summary(const std::string& db_path, const std::string& which, frame::Frame& out,
                  io::Diagnostics& diag) {
  if (!fs::exists(db_path)) {
    diag.error(db_path, 0, which + " has no cluster_analysis.db",
               "run `clusterscope cluster -m cluster_time_summary --export_type db` on it first");
    return false;
  }
  recipes::RankDb db(db_path, diag);
  if (!db.ok()) return false;
  if (!db.has_table(kTable)) {
    diag.error(db_path, 0, std::string("no table ") + kTable,
               "run `clusterscope cluster -m cluster_time_summary --export_type db` on " + which +
                   " first");
    return false;
  }
  const auto have = db.columns(kTable);
  std::string cols;
  for (const char* c : kColumns)
    for (const auto& h : have)
      if (h == c) cols += (cols.empty() ? "" : ",") + std::string(c);
  if (cols.empty()) {
    diag.error(db_path, 0, std::string("table ") + kTable + " has none of its columns",
               "write it again with cluster_time_summary");
    return false;
  }
  return db.query("select " + cols + " from " + kTable, {}, out, kTable, diag);
}

bool is_int_column(const frame::FrameColumn& c) {
  return c.dtype() == frame::Dtype::kInt64;
}

}  // namespace

frame::Frame compare_time_summaries(const frame::Frame& current, const frame::Frame& base) {
  const frame::FrameColumn* rank = frame::find_column(current, "rank");
  const frame::FrameColumn* step = frame::find_column(current, "step");
  const frame::FrameColumn* brank = frame::find_column(base, "rank");
  const frame::FrameColumn* bstep = frame::find_column(base, "step");
  frame::Frame out;
  if (!rank || !step || !brank || !bstep) return out;
  // The base rows of each (rank, step), in order (NULL keys match nothing).
  std::map<std::pair<std::string, std::string>, std::vector<size_t>> base_rows;
  for (size_t r = 0; r < base.rows(); ++r)
    if (!brank->cells[r].is_null() && !bstep->cells[r].is_null())
      base_rows[{frame::cell_key(brank->cells[r]), frame::cell_key(bstep->cells[r])}].push_back(r);
  std::vector<std::pair<size_t, long>> joined;  // (current row, base row or -1)
  bool unmatched = false;
  for (size_t r = 0; r < current.rows(); ++r) {
    auto it = base_rows.find({frame::cell_key(rank->cells[r]), frame::cell_key(step->cells[r])});
    if (it == base_rows.end()) {
      joined.emplace_back(r, -1);
      unmatched = true;
      continue;
    }
    for (size_t b : it->second) joined.emplace_back(r, static_cast<long>(b));
  }
  // Each output column's cells for the joined rows and whether pandas holds it as int64.
  struct Column {
    std::string name;
    std::vector<frame::Cell> cells;
    bool is_int;
  };
  std::vector<Column> cols;
  auto current_column = [&](const frame::FrameColumn& c) {
    Column col{c.name, {}, is_int_column(c)};
    for (const auto& [r, _] : joined) col.cells.push_back(c.cells[r]);
    return col;
  };
  cols.push_back(current_column(*rank));
  cols.push_back(current_column(*step));
  for (size_t k = 2; k < std::size(kColumns); ++k) {
    const frame::FrameColumn* c = frame::find_column(current, kColumns[k]);
    const frame::FrameColumn* b = frame::find_column(base, kColumns[k]);
    if (!c || !b) continue;
    Column cur = current_column(*c);
    Column bas{c->name + "Base", {}, is_int_column(*b) && !unmatched};
    for (const auto& [_, br] : joined)
      bas.cells.push_back(br < 0 ? frame::Cell::null() : b->cells[static_cast<size_t>(br)]);
    Column diff{c->name + "Diff", {}, cur.is_int && bas.is_int};
    for (size_t i = 0; i < joined.size(); ++i) {
      const frame::Cell &x = cur.cells[i], &y = bas.cells[i];
      if (!x.is_number() || !y.is_number())
        diff.cells.push_back(frame::Cell::null());
      else if (diff.is_int)
        diff.cells.push_back(frame::Cell::integer(x.i() - y.i()));
      else
        diff.cells.push_back(frame::Cell::real(x.num() - y.num()));
    }
    cols.push_back(std::move(cur));
    cols.push_back(std::move(bas));
    cols.push_back(std::move(diff));
  }
  // dropna(): rows with a NULL anywhere go; a float column stays float.
  for (const auto& c : cols) out.add(c.name);
  for (size_t i = 0; i < joined.size(); ++i) {
    bool complete = true;
    for (const auto& c : cols) complete = complete && c.cells[i].is_number();
    if (!complete) continue;
    for (size_t k = 0; k < cols.size(); ++k)
      out.columns[k].push_back(cols[k].is_int ? cols[k].cells[i]
                                              : frame::Cell::real(cols[k].cells[i].num()));
  }
  return out;
}

bool ClusterTimeCompareSummary::map(const RankDbPaths&, frame::FrameSet&, io::Diagnostics&) const {
  return true;  // everything comes from the two cluster_analysis.db files
}

bool ClusterTimeCompareSummary::reduce(const std::vector<RankPartial>&, const RecipeOutput& out,
                                       io::Diagnostics& diag) const {
  if (out.bp.empty()) {
    diag.error(
        out.input_dir, 0, "cluster_time_compare_summary needs the base job",
        "give it with --bp BASE_DIR (a job with cluster_analysis_output/cluster_analysis.db)");
    return false;
  }
  if (out.export_type != ExportType::kDb) {
    diag.error(out.input_dir, 0, "cluster_time_compare_summary writes only the db export",
               "run it with --export_type db");
    return false;
  }
  if (!fs::is_directory(out.bp)) {
    diag.error(out.bp, 0, "--bp is not a directory", "give the base job's directory");
    return false;
  }
  const auto db_of = [](const std::string& dir) {
    return (fs::path(dir) / "cluster_analysis_output" / "cluster_analysis.db").string();
  };
  frame::Frame current, base;
  if (!read_summary(db_of(out.input_dir), "the job (-d)", current, diag) ||
      !read_summary(db_of(out.bp), "the base job (--bp)", base, diag))
    return false;
  const frame::Frame result = compare_time_summaries(current, base);
  if (result.rows() == 0) {
    diag.warn(db_of(out.input_dir), 0, "no (rank, step) of the job is in the base job",
              "compare two runs of the same job shape");
    return true;
  }
  return dump_recipe_frame(result, out, dir_name(), "", "ClusterTimeCompareSummary", diag);
}

}  // namespace cs::recipes::cluster_time_compare_summary
