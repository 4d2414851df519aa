#include "msprof_analyze/recipes/communication_matrix_sum/communication_matrix_sum.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <unordered_map>

#include "frame/frame_ops.h"
#include "msprof_analyze/recipes/communication_matrix_sum/matrix_sum_parked.h"
#include "msprof_analyze/recipes/communication_matrix_sum/matrix_sum_stream.h"
#include "msprof_analyze/recipes/communication_matrix_sum/msprof_matrix_rows.h"
#include "msprof_analyze/recipes/frame_writers.h"
#include "msprof_analyze/recipes/parked_frames.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"
#include "runtime/allocator_tuning.h"

namespace cs::recipes::communication_matrix_sum {

const frame::Cell kNull;

const std::vector<frame::Cell>* cells_of(const frame::Frame& f, const std::string& name) {
  const frame::FrameColumn* c = frame::find_column(f, name);
  return c ? &c->cells : nullptr;
}

const frame::Cell& at(const std::vector<frame::Cell>* c, size_t r) {
  return c ? (*c)[r] : kNull;
}

namespace {

// rank_set of every row: the group's global ranks joined by ",", "p2p" for point-to-point ops,
// "" for a group no rank mapped; one text per group, shared by its rows.
void add_rank_sets(frame::Frame& all, const RankMap& rank_map) {
  std::unordered_map<frame::Cell, frame::Cell, frame::CellKeyHash, frame::CellKeyEqual> group_sets;
  const frame::Cell p2p = frame::Cell::text("p2p");
  const frame::Cell no_set = frame::Cell::text("");
  const std::vector<frame::Cell>* type_c = cells_of(all, "type");
  const std::vector<frame::Cell>* group_c = cells_of(all, "group_name");
  const size_t n = all.rows();
  auto& rank_set = all.add("rank_set").cells;
  rank_set.resize(n);
  for (size_t r = 0; r < n; ++r) {
    const frame::Cell& type = at(type_c, r);
    if (type.kind == frame::Cell::Kind::kText && type.text_ptr() == p2p.text_ptr()) {
      rank_set[r] = p2p;
      continue;
    }
    const frame::Cell& group = at(group_c, r);
    auto set = group_sets.find(group);
    if (set == group_sets.end()) {
      frame::Cell value = no_set;
      if (auto it = rank_map.find(group); it != rank_map.end()) {
        std::vector<int> globals;
        for (const auto& [l, g] : it->second.local_to_global) globals.push_back(g);
        std::sort(globals.begin(), globals.end());
        std::string s;
        for (size_t k = 0; k < globals.size(); ++k)
          s += (k ? "," : "") + std::to_string(globals[k]);
        value = frame::Cell::text(s);
      }
      set = group_sets.emplace(group, value).first;
    }
    rank_set[r] = set->second;
  }
}

}  // namespace

void add_local_ranks(RankMap& rank_map, const frame::Frame& f, int rank) {
  const std::vector<frame::Cell>* src_c = cells_of(f, "src_rank");
  const std::vector<frame::Cell>* dst_c = cells_of(f, "dst_rank");
  const std::vector<frame::Cell>* group_c = cells_of(f, "group_name");
  if (!src_c) return;
  for (size_t r = 0; r < f.rows(); ++r) {
    const frame::Cell& src = (*src_c)[r];
    if (src.is_null() || !(src == at(dst_c, r))) continue;
    rank_map[at(group_c, r)].add(src, rank);
  }
}

namespace {

// Which global rank each group's local rank is: from each rank's own (src == dst) rows.
RankMap map_local_ranks(const std::vector<const frame::Frame*>& frames,
                        const std::vector<int>& ranks) {
  RankMap rank_map;
  for (size_t i = 0; i < frames.size(); ++i) add_local_ranks(rank_map, *frames[i], ranks[i]);
  return rank_map;
}

}  // namespace

frame::Frame output_frame() {
  frame::Frame out;
  for (const char* c : {"step", "hccl_op_name", "group_name", "src_rank", "dst_rank",
                        "transport_type", "op_name", "transit_size", "transit_time", "bandwidth"})
    out.add(c);
  out.columns[9].force_object = true;
  return out;
}

namespace {

// output_frame()'s ten columns by name, as references into `out` (bound with
// `auto [step, op, ...] = columns_of(out)`).
struct OutColumns {
  frame::FrameColumn &step, &op, &group, &src, &dst, &transport, &op_name, &size, &time, &bw;
};
OutColumns columns_of(frame::Frame& out) {
  auto& c = out.columns;
  return {c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9]};
}

// The merge of the ranks' rows concatenated in rank order (`all`, freed on return).
frame::Frame merge_concatenated(frame::Frame all, const RankMap& rank_map) {
  add_rank_sets(all, rank_map);
  const frame::FrameColumn* size_c = frame::find_column(all, "transit_size");
  const frame::FrameColumn* time_c = frame::find_column(all, "transit_time");
  const frame::FrameColumn* transport_c = frame::find_column(all, "transport_type");
  const frame::FrameColumn* opname_c = frame::find_column(all, "op_name");
  const std::vector<frame::Cell>* step_in = cells_of(all, "step");
  const std::vector<frame::Cell>* op_in = cells_of(all, "hccl_op_name");
  const std::vector<frame::Cell>* group_in = cells_of(all, "group_name");
  const std::vector<frame::Cell>* src_in = cells_of(all, "src_rank");
  const std::vector<frame::Cell>* dst_in = cells_of(all, "dst_rank");
  const frame::Dtype size_t_ = size_c->dtype(), time_t_ = time_c->dtype();
  frame::Frame out = output_frame();
  auto [step, op, group, src, dst, transport, op_name, size, time, bw] = columns_of(out);
  const frame::GroupedRows links = frame::group_rows_flat(
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
    src.push_back(frame::Cell::integer(*gs));
    dst.push_back(frame::Cell::integer(*gd));
    transport.push_back(transport_c ? frame::group_first(*transport_c, rows) : frame::Cell::null());
    op_name.push_back(opname_c ? frame::group_first(*opname_c, rows) : frame::Cell::null());
    const frame::Cell s = frame::group_sum(*size_c, size_t_, rows);
    const frame::Cell t = frame::group_sum(*time_c, time_t_, rows);
    size.push_back(s);
    time.push_back(t);
    bw.push_back(frame::Cell::real(t.num() != 0.0 ? s.num() / t.num() : 0.0));
  }
  append_totals(out);
  return out;
}

}  // namespace

frame::Frame total_rows(const frame::Frame& in, std::vector<size_t>* first) {
  const auto& op = in.columns[1];
  // Per link, the "-total" rows summed into one "Total Op Info" row.
  std::vector<size_t> total_links;
  for (size_t r = 0; r < in.rows(); ++r) {
    const frame::Cell& c = op.cells[r];
    if (c.kind == frame::Cell::Kind::kText && c.str().find("total") != std::string::npos)
      total_links.push_back(r);
  }
  frame::Frame totals_src;
  for (const auto& c : in.columns) {
    auto& d = totals_src.add(c.name);
    d.cells.reserve(total_links.size());
    for (size_t r : total_links) d.push_back(c.cells[r]);
  }
  const frame::Dtype tsize_t = in.columns[7].dtype(), ttime_t = in.columns[8].dtype();
  const frame::Cell total_op = frame::Cell::text("Total Op Info");
  const frame::FrameColumn& t_transport = *frame::find_column(totals_src, "transport_type");
  const frame::FrameColumn& t_opname = *frame::find_column(totals_src, "op_name");
  const frame::FrameColumn& t_size = *frame::find_column(totals_src, "transit_size");
  const frame::FrameColumn& t_time = *frame::find_column(totals_src, "transit_time");
  const frame::GroupedRows totals =
      frame::group_rows_flat(totals_src, {"group_name", "step", "src_rank", "dst_rank"}, false);
  frame::Frame sums = output_frame();
  auto [step, op_out, group, src, dst, transport, op_name, size, time, bw] = columns_of(sums);
  for (auto& c : sums.columns) c.cells.reserve(totals.size());
  for (size_t g = 0; g < totals.size(); ++g) {
    const std::span<const size_t> rows = totals[g];
    const size_t r0 = rows.front();
    if (first) first->push_back(total_links[r0]);
    step.push_back(totals_src.columns[0].cells[r0]);
    op_out.push_back(total_op);
    group.push_back(totals_src.columns[2].cells[r0]);
    src.push_back(totals_src.columns[3].cells[r0]);
    dst.push_back(totals_src.columns[4].cells[r0]);
    transport.push_back(frame::group_first(t_transport, rows));
    op_name.push_back(frame::group_first(t_opname, rows));
    const frame::Cell s = frame::group_sum(t_size, tsize_t, rows);
    const frame::Cell t = frame::group_sum(t_time, ttime_t, rows);
    size.push_back(s);
    time.push_back(t);
    bw.push_back(frame::Cell::real(s.num() / t.num()));
  }
  return sums;
}

void append_totals(frame::Frame& out) {
  const frame::Frame sums = total_rows(out);
  for (size_t c = 0; c < out.columns.size(); ++c) {
    auto& cells = out.columns[c].cells;
    cells.insert(cells.end(), sums.columns[c].cells.begin(), sums.columns[c].cells.end());
  }
}

frame::Frame merge_communication_matrix(const std::vector<const frame::Frame*>& frames,
                                        const std::vector<int>& ranks) {
  return merge_concatenated(frame::concat_frames(frames, frame::column_union(frames)),
                            map_local_ranks(frames, ranks));
}

frame::Frame merge_communication_matrix(std::vector<frame::Frame>&& frames,
                                        const std::vector<int>& ranks) {
  std::vector<const frame::Frame*> ptrs;
  for (const frame::Frame& f : frames) ptrs.push_back(&f);
  const RankMap rank_map = map_local_ranks(ptrs, ranks);
  const std::vector<std::string> names = frame::column_union(ptrs);
  return merge_concatenated(
      frame::concat_frames(std::move(frames), names, 0, runtime::release_freed_memory), rank_map);
}

bool CommunicationMatrixSum::map(const RankDbPaths& paths, frame::FrameSet& out,
                                 io::Diagnostics& diag) const {
  recipes::RankDb db(paths.analysis_db, diag);
  if (!db.ok()) return false;
  return map_communication_matrix(db, paths, out, diag);
}

bool map_communication_matrix(recipes::RankDb& db, const RankDbPaths& paths, frame::FrameSet& out,
                              io::Diagnostics& diag) {
  if (!db.has_table("CommAnalyzerMatrix")) return true;
  frame::Frame matrix;
  if (!db.query("SELECT * FROM CommAnalyzerMatrix", {}, matrix, "CommAnalyzerMatrix", diag))
    return false;
  if (is_msprof_matrix(matrix)) matrix = reshape_msprof_matrix(matrix);  // MindSpore, msprof
  for (const char* col : {"hccl_op_name", "group_name", "src_rank", "dst_rank", "transit_size",
                          "transit_time", "step"})
    if (!frame::find_column(matrix, col)) {
      diag.error(paths.analysis_db, 0, std::string("table CommAnalyzerMatrix: no column ") + col,
                 "re-export this rank's profiling data");
      return false;
    }
  out["matrix"] = std::move(matrix);
  return true;
}

std::optional<frame::Frame> CommunicationMatrixSum::kept_beside(const std::string& key,
                                                                const frame::Frame& f) const {
  if (key != "matrix") return std::nullopt;
  return own_rows(f);
}

bool CommunicationMatrixSum::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                                    io::Diagnostics& diag) const {
  std::vector<RankPartial> copy = parts;  // merge takes the frames
  return merge(copy, out.threads, diag)(out, diag);
}

Recipe::WriteStep CommunicationMatrixSum::merge(std::vector<RankPartial>& parts, int /*threads*/,
                                                io::Diagnostics& /*diag*/) const {
  if (any_parked(parts)) {
    // Streamed: the merged links in sorted runs in the parked frames' spill file, read back in
    // order as the table is written (matrix_sum_stream.h).
    std::shared_ptr<runtime::SpillFile> file;
    for (const auto& p : parts)
      for (const ParkedFrame& f : p.parked)
        if (!file) file = f.file;
    std::shared_ptr<StreamedMatrix> streamed;
    std::string problem;
    try {
      streamed = stream_matrix(parts, file);
    } catch (const std::runtime_error& e) {
      problem = e.what();
    }
    const std::string name = dir_name();
    return [streamed, name, problem](const RecipeOutput& out, io::Diagnostics& diag) {
      if (!problem.empty()) {
        diag.error(out.db_path(name), 0, "communication_matrix_sum: " + problem,
                   "check the free space of the temporary directory ($TMPDIR)");
        return false;
      }
      if (streamed->rows() == 0) {
        diag.warn(out.cluster_output_dir, 0,
                  "communication_matrix_sum: no communication matrix data", "nothing was written");
        return true;
      }
      if (!streamed->problem().empty())
        diag.warn(out.cluster_output_dir, 0,
                  "communication_matrix_sum: the merged matrix could not be parked on disk (" +
                      streamed->problem() + "): it was held in memory",
                  "check the free space of the temporary directory ($TMPDIR)");
      if (out.export_type == ExportType::kDb)
        return write_streamed_matrix(*streamed, out.db_path(name), diag);
      try {
        return recipes::write_frame_csv(collect_matrix(*streamed),
                                        out.dir(name) + "/cluster_communication_matrix.csv", diag);
      } catch (const std::runtime_error& e) {
        diag.error(out.db_path(name), 0, std::string("communication_matrix_sum: ") + e.what(),
                   "check the free space of the temporary directory ($TMPDIR)");
        return false;
      }
    };
  }
  // Held (CS_RECIPE_PARK=off, text exports): the ranks' frames taken from the parts, each rank's
  // rows freed as they are concatenated.
  auto merged = std::make_shared<frame::Frame>();
  std::vector<int> ranks;
  std::vector<frame::Frame> frames = take_used_frames(parts, "matrix", true, &ranks);
  if (!frames.empty()) *merged = merge_communication_matrix(std::move(frames), ranks);
  const std::string name = dir_name();
  return [merged, name](const RecipeOutput& out, io::Diagnostics& diag) {
    if (merged->rows() == 0) {
      diag.warn(out.cluster_output_dir, 0, "communication_matrix_sum: no communication matrix data",
                "nothing was written");
      return true;
    }
    if (out.export_type == ExportType::kText)
      return recipes::write_frame_csv(*merged, out.dir(name) + "/cluster_communication_matrix.csv",
                                      diag);
    for (auto* col :
         {frame::find_column(*merged, "src_rank"), frame::find_column(*merged, "dst_rank")})
      for (auto& c : col->cells) c = frame::Cell::real(c.num());
    return recipes::write_frame_sqlite(*merged, out.db_path(name), "ClusterCommunicationMatrix",
                                       diag, out.threads);
  };
}

}  // namespace cs::recipes::communication_matrix_sum
