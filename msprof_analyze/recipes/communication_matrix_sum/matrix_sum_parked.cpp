#include "msprof_analyze/recipes/communication_matrix_sum/matrix_sum_parked.h"

#include <cmath>
#include <iterator>

#include "msprof_analyze/recipes/parked_frames.h"
#include "runtime/allocator_tuning.h"

namespace cs::recipes::communication_matrix_sum {

namespace {

// merge_concatenated's links built a rank at a time, without the concatenation: each row goes to
// its link (rank set, step, op, group, src, dst: a link's rank set is its group's, or "p2p") in
// order of first appearance, its sizes and times summed as groupby's sum does (integers, or
// Kahan's sum of the numbers), its transport and op name the first non-NULL.
class ParkedLinks {
 public:
  ParkedLinks(frame::Dtype size_type, frame::Dtype time_type, uint64_t rows)
      : size_type_(size_type), time_type_(time_type), out_(output_frame()) {
    for (auto& c : out_.columns) c.cells.reserve(rows);
  }

  // Adds the rows of one rank (in rank order).
  void add(const frame::Frame& f, const RankMap& rank_map) {
    const frame::Cell p2p = frame::Cell::text("p2p");
    const auto* type_c = cells_of(f, "type");
    const auto* step_c = cells_of(f, "step");
    const auto* op_c = cells_of(f, "hccl_op_name");
    const auto* group_c = cells_of(f, "group_name");
    const auto* src_c = cells_of(f, "src_rank");
    const auto* dst_c = cells_of(f, "dst_rank");
    const auto* transport_c = cells_of(f, "transport_type");
    const auto* opname_c = cells_of(f, "op_name");
    const auto* size_c = cells_of(f, "transit_size");
    const auto* time_c = cells_of(f, "transit_time");
    for (size_t r = 0; r < f.rows(); ++r) {
      const frame::Cell &step = at(step_c, r), &op = at(op_c, r), &group = at(group_c, r);
      const frame::Cell &src = at(src_c, r), &dst = at(dst_c, r);
      if (step.is_null() || op.is_null() || group.is_null() || src.is_null() || dst.is_null())
        continue;  // (groupby drops a NULL key)
      auto it = rank_map.find(group);
      if (it == rank_map.end()) continue;
      const int* gs = it->second.find(src);
      const int* gd = it->second.find(dst);
      if (!gs || !gd) continue;  // an unmapped link is left out
      const frame::Cell& type = at(type_c, r);
      const bool is_p2p =
          type.kind == frame::Cell::Kind::kText && type.text_ptr() == p2p.text_ptr();
      const size_t g = link_of(is_p2p, step, op, group, src, dst, *gs, *gd);
      Link& link = links_[g];
      for (auto [col, in] : {std::pair{5, transport_c}, std::pair{6, opname_c}}) {
        frame::Cell& first = out_.columns[col].cells[g];
        if (first.is_null()) first = at(in, r);
      }
      add_value(out_.columns[7].cells[g], link.size_comp, size_type_, at(size_c, r));
      add_value(out_.columns[8].cells[g], link.time_comp, time_type_, at(time_c, r));
    }
  }

  // The merged matrix, its "Total Op Info" rows appended.
  frame::Frame finish() {
    auto& bw = out_.columns[9].cells;
    bw.clear();
    for (size_t g = 0; g < links_.size(); ++g) {
      const frame::Cell& s = out_.columns[7].cells[g];
      const frame::Cell& t = out_.columns[8].cells[g];
      bw.push_back(frame::Cell::real(t.num() != 0.0 ? s.num() / t.num() : 0.0));
    }
    links_ = {};
    slots_ = {};
    append_totals(out_);
    return std::move(out_);
  }

 private:
  struct Link {
    frame::Cell src, dst;  // as the rank reported them (local ranks)
    double size_comp = 0.0, time_comp = 0.0;
    uint64_t hash = 0;
    bool p2p = false;
  };
  static constexpr uint32_t kNone = UINT32_MAX;

  // group_sum's step for one more row.
  static void add_value(frame::Cell& sum, double& comp, frame::Dtype t, const frame::Cell& x) {
    if (t == frame::Dtype::kInt64) {
      sum = frame::Cell::integer(sum.i() + x.i());
      return;
    }
    if (!x.is_number() || std::isnan(x.num())) return;
    const double y = x.num() - comp;
    const double total = sum.num() + y;
    comp = total - sum.num() - y;
    sum = frame::Cell::real(total);
  }

  // The link of a row (a new one at the end when it has none yet).
  size_t link_of(bool p2p, const frame::Cell& step, const frame::Cell& op, const frame::Cell& group,
                 const frame::Cell& src, const frame::Cell& dst, int global_src, int global_dst) {
    uint64_t h = p2p ? 0x9e3779b97f4a7c15ull : 0;
    for (const frame::Cell* c : {&step, &op, &group, &src, &dst})
      h = (h ^ frame::cell_key_hash(*c)) * 0x100000001b3ull;
    h ^= h >> 29;
    size_t pos = h & mask_;
    for (;; pos = (pos + 1) & mask_) {
      const uint32_t g = slots_[pos];
      if (g == kNone) break;
      const Link& l = links_[g];
      if (l.hash == h && l.p2p == p2p && frame::cell_key_equal(out_.columns[0].cells[g], step) &&
          frame::cell_key_equal(out_.columns[1].cells[g], op) &&
          frame::cell_key_equal(out_.columns[2].cells[g], group) &&
          frame::cell_key_equal(l.src, src) && frame::cell_key_equal(l.dst, dst))
        return g;
    }
    const uint32_t g = static_cast<uint32_t>(links_.size());
    slots_[pos] = g;
    links_.push_back({src, dst, 0.0, 0.0, h, p2p});
    const frame::Cell zero_size =
        size_type_ == frame::Dtype::kInt64 ? frame::Cell::integer(0) : frame::Cell::real(0.0);
    const frame::Cell zero_time =
        time_type_ == frame::Dtype::kInt64 ? frame::Cell::integer(0) : frame::Cell::real(0.0);
    const frame::Cell row[] = {step,
                               op,
                               group,
                               frame::Cell::integer(global_src),
                               frame::Cell::integer(global_dst),
                               frame::Cell::null(),
                               frame::Cell::null(),
                               zero_size,
                               zero_time,
                               frame::Cell::null()};
    for (size_t c = 0; c < std::size(row); ++c) out_.columns[c].cells.push_back(row[c]);
    if (links_.size() * 2 > mask_ + 1) {  // at most half full
      mask_ = mask_ * 2 + 1;
      slots_.assign(mask_ + 1, kNone);
      for (uint32_t k = 0; k < links_.size(); ++k) {
        size_t p = links_[k].hash & mask_;
        while (slots_[p] != kNone) p = (p + 1) & mask_;
        slots_[p] = k;
      }
    }
    return g;
  }

  frame::Dtype size_type_, time_type_;
  frame::Frame out_;
  std::vector<Link> links_;
  size_t mask_ = 1023;
  std::vector<uint32_t> slots_ = std::vector<uint32_t>(1024, kNone);
};

}  // namespace

frame::Frame own_rows(const frame::Frame& f) {
  frame::Frame out;
  const std::vector<frame::Cell>* src_c = cells_of(f, "src_rank");
  const std::vector<frame::Cell>* dst_c = cells_of(f, "dst_rank");
  if (!src_c) return out;
  const std::vector<frame::Cell>* group_c = cells_of(f, "group_name");
  // Only the first row of each (group, local rank): add_local_ranks does nothing with the others.
  std::vector<size_t> own;
  for (size_t r = 0; r < f.rows(); ++r) {
    const frame::Cell& src = (*src_c)[r];
    if (src.is_null() || !(src == at(dst_c, r))) continue;
    bool seen = false;
    for (size_t o : own)
      seen = seen || (frame::cell_key_equal((*src_c)[o], src) &&
                      frame::cell_key_equal(at(group_c, o), at(group_c, r)));
    if (!seen) own.push_back(r);
  }
  for (const char* name : {"src_rank", "dst_rank", "group_name"}) {
    const std::vector<frame::Cell>* in = cells_of(f, name);
    if (!in) continue;
    auto& cells = out.add(name).cells;
    cells.reserve(own.size());
    for (size_t r : own) cells.push_back((*in)[r]);
  }
  return out;
}

// The rank map from each rank's own rows (kept beside a parked frame, else read back from it),
// then each rank read back once into the merged links (ParkedLinks), so neither the ranks' frames
// nor their concatenation are ever held whole.

frame::Frame merge_parked(std::vector<RankPartial>& parts) {
  std::vector<RankPartial*> ranks;
  uint64_t total = 0;
  for (auto& p : parts)
    if (p.used && frame_rows(p, "matrix") > 0) {
      ranks.push_back(&p);
      total += frame_rows(p, "matrix");
    }
  if (ranks.empty()) return {};
  RankMap rank_map;
  for (RankPartial* p : ranks) {
    if (auto it = p->frames.find("matrix"); it != p->frames.end()) {
      add_local_ranks(rank_map, it->second, p->rank);
      continue;
    }
    const ParkedFrame* parked = nullptr;
    for (const ParkedFrame& f : p->parked)
      if (f.key == "matrix") parked = &f;
    if (parked && parked->beside)
      add_local_ranks(rank_map, *parked->beside, p->rank);
    else
      add_local_ranks(rank_map, read_frame(*p, "matrix"), p->rank);
  }
  const std::vector<ColumnKinds> columns = concat_columns(parts, "matrix", true);
  auto dtype_of = [&](const std::string& name) {
    for (const ColumnKinds& c : columns)
      if (*c.name == name) return frame::dtype_of_kinds(c.kinds, c.force_object);
    return frame::Dtype::kObject;
  };
  ParkedLinks links(dtype_of("transit_size"), dtype_of("transit_time"), total);
  const uint64_t step = total / 16 + 1;
  uint64_t moved = 0, next_release = step;
  for (RankPartial* p : ranks) {
    const frame::Frame f = take_frame(*p, "matrix");
    moved += f.rows();
    links.add(f, rank_map);
    if (moved >= next_release) {
      runtime::release_freed_memory();
      next_release = moved + step;
    }
  }
  return links.finish();
}

bool any_parked(const std::vector<RankPartial>& parts) {
  for (const auto& p : parts)
    if (p.used && has_frame(p, "matrix") && !p.frames.contains("matrix")) return true;
  return false;
}

}  // namespace cs::recipes::communication_matrix_sum
