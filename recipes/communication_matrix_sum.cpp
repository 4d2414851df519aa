#include "recipes/communication_matrix_sum.h"

#include <algorithm>
#include <memory>
#include <unordered_map>

#include "recipes/frame/frame_ops.h"
#include "recipes/frame/frame_writers.h"
#include "recipes/frame/rank_db.h"

namespace cs::recipes {

namespace {

// A group's local ranks (as cells, compared as cell_key()s) and their global ranks, in order of
// first appearance, with an index (a group may hold every rank of a large job).
struct GroupRanks {
  std::vector<std::pair<Cell, int>> local_to_global;
  std::unordered_map<Cell, int, CellKeyHash, CellKeyEqual> index;
  const int* find(const Cell& local) const {
    auto it = index.find(local);
    return it == index.end() ? nullptr : &it->second;
  }
  void add(const Cell& local, int global) {
    if (index.emplace(local, global).second) local_to_global.emplace_back(local, global);
  }
};

using RankMap = std::unordered_map<Cell, GroupRanks, CellKeyHash, CellKeyEqual>;

const Cell kNull;

// Column `name` of `f`, or nullptr.
const std::vector<Cell>* cells_of(const Frame& f, const std::string& name) {
  const FrameColumn* c = find_column(f, name);
  return c ? &c->cells : nullptr;
}

const Cell& at(const std::vector<Cell>* c, size_t r) {
  return c ? (*c)[r] : kNull;
}

// rank_set of every row: the group's global ranks joined by ",", "p2p" for point-to-point ops,
// "" for a group no rank mapped; one text per group, shared by its rows.
void add_rank_sets(Frame& all, const RankMap& rank_map) {
  std::unordered_map<Cell, Cell, CellKeyHash, CellKeyEqual> group_sets;
  const Cell p2p = Cell::text("p2p");
  const Cell no_set = Cell::text("");
  const std::vector<Cell>* type_c = cells_of(all, "type");
  const std::vector<Cell>* group_c = cells_of(all, "group_name");
  const size_t n = all.rows();
  auto& rank_set = all.add("rank_set").cells;
  rank_set.resize(n);
  for (size_t r = 0; r < n; ++r) {
    const Cell& type = at(type_c, r);
    if (type.kind == Cell::Kind::kText && type.text_ptr() == p2p.text_ptr()) {
      rank_set[r] = p2p;
      continue;
    }
    const Cell& group = at(group_c, r);
    auto set = group_sets.find(group);
    if (set == group_sets.end()) {
      Cell value = no_set;
      if (auto it = rank_map.find(group); it != rank_map.end()) {
        std::vector<int> globals;
        for (const auto& [l, g] : it->second.local_to_global) globals.push_back(g);
        std::sort(globals.begin(), globals.end());
        std::string s;
        for (size_t k = 0; k < globals.size(); ++k)
          s += (k ? "," : "") + std::to_string(globals[k]);
        value = Cell::text(s);
      }
      set = group_sets.emplace(group, value).first;
    }
    rank_set[r] = set->second;
  }
}

}  // namespace

Frame merge_communication_matrix(const std::vector<const Frame*>& frames,
                                 const std::vector<int>& ranks) {
  // Which global rank each group's local rank is: from each rank's own (src == dst) rows.
  RankMap rank_map;
  for (size_t i = 0; i < frames.size(); ++i) {
    const Frame& f = *frames[i];
    const std::vector<Cell>* src_c = cells_of(f, "src_rank");
    const std::vector<Cell>* dst_c = cells_of(f, "dst_rank");
    const std::vector<Cell>* group_c = cells_of(f, "group_name");
    if (!src_c) continue;
    for (size_t r = 0; r < f.rows(); ++r) {
      const Cell& src = (*src_c)[r];
      if (src.is_null() || !(src == at(dst_c, r))) continue;
      rank_map[at(group_c, r)].add(src, ranks[i]);
    }
  }
  Frame all = concat_frames(frames, column_union(frames));
  add_rank_sets(all, rank_map);
  const FrameColumn* size_c = find_column(all, "transit_size");
  const FrameColumn* time_c = find_column(all, "transit_time");
  const FrameColumn* transport_c = find_column(all, "transport_type");
  const FrameColumn* opname_c = find_column(all, "op_name");
  const std::vector<Cell>* step_in = cells_of(all, "step");
  const std::vector<Cell>* op_in = cells_of(all, "hccl_op_name");
  const std::vector<Cell>* group_in = cells_of(all, "group_name");
  const std::vector<Cell>* src_in = cells_of(all, "src_rank");
  const std::vector<Cell>* dst_in = cells_of(all, "dst_rank");
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
  const GroupedRows links = group_rows_flat(
      all, {"rank_set", "step", "hccl_op_name", "group_name", "src_rank", "dst_rank"}, false);
  // Room for every link and the "Total Op Info" rows at most one per "-total" link, so the
  // columns are allocated once.
  size_t total_links = 0;
  if (op_in)
    for (size_t g = 0; g < links.size(); ++g)
      total_links += (*op_in)[links[g].front()].str().find("total") != std::string::npos;
  for (auto& c : out.columns) c.cells.reserve(links.size() + total_links);
  for (size_t g = 0; g < links.size(); ++g) {
    const std::span<const size_t> rows = links[g];
    const size_t r0 = rows.front();
    auto it = rank_map.find(at(group_in, r0));
    if (it == rank_map.end()) continue;
    const int* gs = it->second.find(at(src_in, r0));
    const int* gd = it->second.find(at(dst_in, r0));
    if (!gs || !gd) continue;
    step.push_back(at(step_in, r0));
    op.push_back(at(op_in, r0));
    group.push_back(at(group_in, r0));
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
    d.cells.reserve(total_rows.size());
    for (size_t r : total_rows) d.push_back(c.cells[r]);
  }
  const Dtype tsize_t = size.dtype(), ttime_t = time.dtype();
  const Cell total_op = Cell::text("Total Op Info");
  const FrameColumn& t_transport = *find_column(totals_src, "transport_type");
  const FrameColumn& t_opname = *find_column(totals_src, "op_name");
  const FrameColumn& t_size = *find_column(totals_src, "transit_size");
  const FrameColumn& t_time = *find_column(totals_src, "transit_time");
  const GroupedRows totals =
      group_rows_flat(totals_src, {"group_name", "step", "src_rank", "dst_rank"}, false);
  for (size_t g = 0; g < totals.size(); ++g) {
    const std::span<const size_t> rows = totals[g];
    const size_t r0 = rows.front();
    step.push_back(totals_src.columns[0].cells[r0]);
    op.push_back(total_op);
    group.push_back(totals_src.columns[2].cells[r0]);
    src.push_back(totals_src.columns[3].cells[r0]);
    dst.push_back(totals_src.columns[4].cells[r0]);
    transport.push_back(group_first(t_transport, rows));
    op_name.push_back(group_first(t_opname, rows));
    const Cell s = group_sum(t_size, tsize_t, rows);
    const Cell t = group_sum(t_time, ttime_t, rows);
    size.push_back(s);
    time.push_back(t);
    bw.push_back(Cell::real(s.num() / t.num()));
  }
  return out;
}

bool CommunicationMatrixSum::map(const RankDbPaths& paths, FrameSet& out,
                                 io::Diagnostics& diag) const {
  RankDb db(paths.analysis_db, diag);
  if (!db.ok()) return false;
  return map_communication_matrix(db, paths, out, diag);
}

bool map_communication_matrix(RankDb& db, const RankDbPaths& paths, FrameSet& out,
                              io::Diagnostics& diag) {
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
  return merge(parts, out.threads, diag)(out, diag);
}

Recipe::WriteStep CommunicationMatrixSum::merge(const std::vector<RankPartial>& parts,
                                                int /*threads*/, io::Diagnostics& /*diag*/) const {
  std::vector<const Frame*> frames;
  std::vector<int> ranks;
  for (const auto& p : parts) {
    if (!p.used) continue;
    auto it = p.frames.find("matrix");
    if (it == p.frames.end() || it->second.rows() == 0) continue;
    frames.push_back(&it->second);
    ranks.push_back(p.rank);
  }
  auto merged = std::make_shared<Frame>();
  if (!frames.empty()) *merged = merge_communication_matrix(frames, ranks);
  const std::string name = dir_name();
  return [merged, name](const RecipeOutput& out, io::Diagnostics& diag) {
    if (merged->rows() == 0) {
      diag.warn(out.cluster_output_dir, 0, "communication_matrix_sum: no communication matrix data",
                "nothing was written");
      return true;
    }
    if (out.export_type == ExportType::kText)
      return write_frame_csv(*merged, out.dir(name) + "/cluster_communication_matrix.csv", diag);
    for (auto* col : {find_column(*merged, "src_rank"), find_column(*merged, "dst_rank")})
      for (auto& c : col->cells) c = Cell::real(c.num());
    return write_frame_sqlite(*merged, out.db_path(name), "ClusterCommunicationMatrix", diag,
                              out.threads);
  };
}

}  // namespace cs::recipes
