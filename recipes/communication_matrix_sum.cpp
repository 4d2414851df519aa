#include "recipes/communication_matrix_sum.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "recipes/frame/frame_ops.h"
#include "recipes/frame/frame_writers.h"
#include "recipes/frame/rank_db.h"

namespace cs::recipes {

namespace {

struct GroupRanks {
  std::vector<std::pair<std::string, int>> local_to_global;  // insertion order
  const int* find(const std::string& local) const {
    for (const auto& [l, g] : local_to_global)
      if (l == local) return &g;
    return nullptr;
  }
};

const Cell& at(const Frame& f, const std::string& col, size_t r) {
  static const Cell null;
  const FrameColumn* c = find_column(f, col);
  return c ? c->cells[r] : null;
}

}  // namespace

Frame merge_communication_matrix(const std::vector<const Frame*>& frames,
                                 const std::vector<int>& ranks) {
  // Which global rank each group's local rank is: from each rank's own (src == dst) rows.
  std::unordered_map<std::string, GroupRanks> rank_map;
  static const Cell null;
  for (size_t i = 0; i < frames.size(); ++i) {
    const Frame& f = *frames[i];
    const FrameColumn* src_c = find_column(f, "src_rank");
    const FrameColumn* dst_c = find_column(f, "dst_rank");
    const FrameColumn* group_c = find_column(f, "group_name");
    if (!src_c) continue;
    for (size_t r = 0; r < f.rows(); ++r) {
      const Cell& src = src_c->cells[r];
      if (src.is_null() || !(src == (dst_c ? dst_c->cells[r] : null))) continue;
      GroupRanks& g = rank_map[cell_key(group_c ? group_c->cells[r] : null)];
      const std::string local = cell_key(src);
      if (!g.find(local)) g.local_to_global.emplace_back(local, ranks[i]);
    }
  }
  Frame all = concat_frames(frames, column_union(frames));
  // rank_set: the group's global ranks joined by ",", "p2p" for point-to-point ops; one text per
  // group, shared by its rows.
  std::unordered_map<std::string, Cell> group_sets;
  const Cell p2p = Cell::text("p2p");
  const Cell no_set = Cell::text("");
  auto& rank_set = all.add("rank_set");
  const FrameColumn* type_c = find_column(all, "type");
  const FrameColumn* all_group_c = find_column(all, "group_name");
  rank_set.cells.reserve(all.rows());
  for (size_t r = 0; r < all.rows(); ++r) {
    const Cell& type = type_c ? type_c->cells[r] : null;
    if (type.kind == Cell::Kind::kText && type.str() == "p2p") {
      rank_set.push_back(p2p);
      continue;
    }
    const std::string key = cell_key(all_group_c ? all_group_c->cells[r] : null);
    auto it = rank_map.find(key);
    if (it == rank_map.end()) {
      rank_set.push_back(no_set);
      continue;
    }
    auto set = group_sets.find(key);
    if (set == group_sets.end()) {
      std::vector<int> globals;
      for (const auto& [l, g] : it->second.local_to_global) globals.push_back(g);
      std::sort(globals.begin(), globals.end());
      std::string s;
      for (size_t k = 0; k < globals.size(); ++k) s += (k ? "," : "") + std::to_string(globals[k]);
      set = group_sets.emplace(key, Cell::text(std::move(s))).first;
    }
    rank_set.push_back(set->second);
  }
  const FrameColumn* size_c = find_column(all, "transit_size");
  const FrameColumn* time_c = find_column(all, "transit_time");
  const FrameColumn* transport_c = find_column(all, "transport_type");
  const FrameColumn* opname_c = find_column(all, "op_name");
  const Dtype size_t_ = size_c->dtype(), time_t_ = time_c->dtype();
  Frame out;
  auto& step = out.add("step");
  auto& op = out.add("hccl_op_name");
  auto& group = out.add("group_name");
  auto& src = out.add("src_rank");
  auto& dst = out.add("dst_rank");
  auto& transport = out.add("transport_type");
  auto& op_name = out.add("op_name");
  auto& size = out.add("transit_size");
  auto& time = out.add("transit_time");
  auto& bw = out.add("bandwidth");
  bw.force_object = true;
  for (const auto& rows :
       group_rows(all, {"rank_set", "step", "hccl_op_name", "group_name", "src_rank", "dst_rank"},
                  false)) {
    const size_t r0 = rows.front();
    auto it = rank_map.find(cell_key(at(all, "group_name", r0)));
    if (it == rank_map.end()) continue;
    const int* gs = it->second.find(cell_key(at(all, "src_rank", r0)));
    const int* gd = it->second.find(cell_key(at(all, "dst_rank", r0)));
    if (!gs || !gd) continue;
    step.push_back(at(all, "step", r0));
    op.push_back(at(all, "hccl_op_name", r0));
    group.push_back(at(all, "group_name", r0));
    src.push_back(Cell::integer(*gs));
    dst.push_back(Cell::integer(*gd));
    transport.push_back(transport_c ? group_first(*transport_c, rows) : Cell::null());
    op_name.push_back(opname_c ? group_first(*opname_c, rows) : Cell::null());
    const Cell s = group_sum(*size_c, size_t_, rows);
    const Cell t = group_sum(*time_c, time_t_, rows);
    size.push_back(s);
    time.push_back(t);
    bw.push_back(Cell::real(t.num() != 0.0 ? s.num() / t.num() : 0.0));
  }
  // Per link, the "-total" rows summed into one "Total Op Info" row.
  std::vector<size_t> total_rows;
  for (size_t r = 0; r < out.rows(); ++r) {
    const Cell& c = op.cells[r];
    if (c.kind == Cell::Kind::kText && c.str().find("total") != std::string::npos)
      total_rows.push_back(r);
  }
  Frame totals_src;
  for (const auto& c : out.columns) {
    auto& d = totals_src.add(c.name);
    for (size_t r : total_rows) d.push_back(c.cells[r]);
  }
  const Dtype tsize_t = size.dtype(), ttime_t = time.dtype();
  const size_t n = out.rows();
  for (const auto& rows :
       group_rows(totals_src, {"group_name", "step", "src_rank", "dst_rank"}, false)) {
    const size_t r0 = rows.front();
    step.push_back(at(totals_src, "step", r0));
    op.push_back(Cell::text("Total Op Info"));
    group.push_back(at(totals_src, "group_name", r0));
    src.push_back(at(totals_src, "src_rank", r0));
    dst.push_back(at(totals_src, "dst_rank", r0));
    transport.push_back(group_first(*find_column(totals_src, "transport_type"), rows));
    op_name.push_back(group_first(*find_column(totals_src, "op_name"), rows));
    const Cell s = group_sum(*find_column(totals_src, "transit_size"), tsize_t, rows);
    const Cell t = group_sum(*find_column(totals_src, "transit_time"), ttime_t, rows);
    size.push_back(s);
    time.push_back(t);
    bw.push_back(Cell::real(s.num() / t.num()));
  }
  (void)n;
  return out;
}

bool CommunicationMatrixSum::map(const RankDbPaths& paths, FrameSet& out,
                                 io::Diagnostics& diag) const {
  RankDb db(paths.analysis_db, diag);
  if (!db.ok()) return false;
  if (!db.has_table("CommAnalyzerMatrix")) return true;
  Frame matrix;
  if (!db.query("SELECT * FROM CommAnalyzerMatrix", {}, matrix, "CommAnalyzerMatrix", diag))
    return false;
  for (const char* col : {"hccl_op_name", "group_name", "src_rank", "dst_rank", "transit_size",
                          "transit_time", "step"})
    if (!find_column(matrix, col)) {
      diag.error(paths.analysis_db, 0, std::string("table CommAnalyzerMatrix: no column ") + col,
                 "re-export this rank's profiling data");
      return false;
    }
  out["matrix"] = std::move(matrix);
  return true;
}

bool CommunicationMatrixSum::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                                    io::Diagnostics& diag) const {
  std::vector<const Frame*> frames;
  std::vector<int> ranks;
  for (const auto& p : parts) {
    if (!p.used) continue;
    auto it = p.frames.find("matrix");
    if (it == p.frames.end() || it->second.rows() == 0) continue;
    frames.push_back(&it->second);
    ranks.push_back(p.rank);
  }
  Frame merged;
  if (!frames.empty()) merged = merge_communication_matrix(frames, ranks);
  if (merged.rows() == 0) {
    diag.warn(out.cluster_output_dir, 0, "communication_matrix_sum: no communication matrix data",
              "nothing was written");
    return true;
  }
  if (out.export_type == ExportType::kText)
    return write_frame_csv(merged, out.dir(dir_name()) + "/cluster_communication_matrix.csv", diag);
  for (auto* col : {find_column(merged, "src_rank"), find_column(merged, "dst_rank")})
    for (auto& c : col->cells) c = Cell::real(c.num());
  return write_frame_sqlite(merged, out.db_path(dir_name()), "ClusterCommunicationMatrix", diag);
}

}  // namespace cs::recipes
