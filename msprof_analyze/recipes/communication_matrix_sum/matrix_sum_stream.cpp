#include "msprof_analyze/recipes/communication_matrix_sum/matrix_sum_stream.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>
#include <unordered_map>

#include "frame/frame_ops.h"
#include "frame/text_pool.h"
#include "msprof_analyze/recipes/communication_matrix_sum/matrix_sum_parked.h"
#include "msprof_analyze/recipes/frame_writers.h"
#include "msprof_analyze/recipes/parked_frames.h"
#include "runtime/allocator_tuning.h"

namespace cs::recipes::communication_matrix_sum {

namespace {

// A partition of the links: (group, global src rank).
struct PartKey {
  frame::Cell group;
  int src = 0;
};
struct PartHash {
  size_t operator()(const PartKey& k) const {
    return frame::cell_key_hash(k.group) * 0x100000001b3ull ^ static_cast<size_t>(k.src);
  }
};
struct PartEqual {
  bool operator()(const PartKey& a, const PartKey& b) const {
    return a.src == b.src && frame::cell_key_equal(a.group, b.group);
  }
};
// Per partition, the last rank (its place in the walk) whose rows touch it.
using LastRank = std::unordered_map<PartKey, uint32_t, PartHash, PartEqual>;

// One merged link as it is summed: its key as the rank reported it, its global ranks, its first
// transport and op name, its sums (groupby's: integers, or Kahan's sum of the numbers).
struct Link {
  frame::Cell step, op, group, src, dst, transport, op_name, size, time;
  int global_src = 0, global_dst = 0;
  double size_comp = 0.0, time_comp = 0.0;
  uint64_t hash = 0;
  uint64_t pos = 0;   // its first row: (rank's place in the walk) << 32 | row
  uint32_t last = 0;  // the last rank that may add to it
  bool p2p = false;
};

// The links not final yet, found by key (open addressing, at most half full).
class LinkTable {
 public:
  LinkTable(frame::Dtype size_type, frame::Dtype time_type)
      : size_type_(size_type), time_type_(time_type) {}

  // Adds the rows of the rank at place `place` of the walk (in order).
  void add(const frame::Frame& f, uint32_t place, const RankMap& rank_map, const LastRank& last) {
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
      Link& link = link_of(is_p2p, step, op, group, src, dst);
      if (link.pos == kFresh) {
        link.global_src = *gs;
        link.global_dst = *gd;
        link.pos = uint64_t{place} << 32 | r;
        auto l = last.find({group, *gs});
        link.last = l == last.end() ? UINT32_MAX : l->second;  // (unknown: open to the end)
        max_last_ = std::max(max_last_, link.last);
      }
      if (link.transport.is_null()) link.transport = at(transport_c, r);
      if (link.op_name.is_null()) link.op_name = at(opname_c, r);
      add_value(link.size, link.size_comp, size_type_, at(size_c, r));
      add_value(link.time, link.time_comp, time_type_, at(time_c, r));
    }
  }

  // After the rank at place `place`: the links no later rank adds to, taken out in position
  // order (all of them with `all`). The table is swept only when every link is final or when it
  // has doubled since the last sweep, so a link that stays open costs no more than its share.
  std::vector<Link> take_final(uint32_t place, bool all) {
    std::vector<Link> out;
    if (all || max_last_ <= place) {
      out.swap(links_);
      max_last_ = 0;
      swept_ = 0;
      reset_slots(mask_for(out.size()));  // (as many as these next: no regrowing)
      return out;
    }
    if (links_.size() < std::max<size_t>(kSweepMin, 2 * swept_)) return out;
    std::vector<Link> open;
    max_last_ = 0;
    for (Link& l : links_) {
      if (l.last <= place) {
        out.push_back(std::move(l));
      } else {
        max_last_ = std::max(max_last_, l.last);
        open.push_back(std::move(l));
      }
    }
    links_ = std::move(open);
    swept_ = links_.size();
    reset_slots(mask_for(links_.size()));
    return out;
  }

 private:
  static constexpr uint64_t kFresh = UINT64_MAX;
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr size_t kSweepMin = 65536;

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

  // The smallest mask (2^k - 1, at least 1023) whose table is at most half full with n links.
  static size_t mask_for(size_t n) {
    size_t mask = 1023;
    while (n * 2 > mask + 1) mask = mask * 2 + 1;
    return mask;
  }

  void reset_slots(size_t mask) {
    mask_ = mask;
    slots_.assign(mask_ + 1, kNone);
    for (uint32_t k = 0; k < links_.size(); ++k) {
      size_t p = links_[k].hash & mask_;
      while (slots_[p] != kNone) p = (p + 1) & mask_;
      slots_[p] = k;
    }
  }

  // The link of a row (a new one at the end, its pos kFresh, when it has none yet).
  Link& link_of(bool p2p, const frame::Cell& step, const frame::Cell& op, const frame::Cell& group,
                const frame::Cell& src, const frame::Cell& dst) {
    uint64_t h = p2p ? 0x9e3779b97f4a7c15ull : 0;
    for (const frame::Cell* c : {&step, &op, &group, &src, &dst})
      h = (h ^ frame::cell_key_hash(*c)) * 0x100000001b3ull;
    h ^= h >> 29;
    size_t pos = h & mask_;
    for (;; pos = (pos + 1) & mask_) {
      const uint32_t g = slots_[pos];
      if (g == kNone) break;
      Link& l = links_[g];
      if (l.hash == h && l.p2p == p2p && frame::cell_key_equal(l.step, step) &&
          frame::cell_key_equal(l.op, op) && frame::cell_key_equal(l.group, group) &&
          frame::cell_key_equal(l.src, src) && frame::cell_key_equal(l.dst, dst))
        return l;
    }
    slots_[pos] = static_cast<uint32_t>(links_.size());
    Link l;
    l.step = step;
    l.op = op;
    l.group = group;
    l.src = src;
    l.dst = dst;
    l.size = size_type_ == frame::Dtype::kInt64 ? frame::Cell::integer(0) : frame::Cell::real(0.0);
    l.time = time_type_ == frame::Dtype::kInt64 ? frame::Cell::integer(0) : frame::Cell::real(0.0);
    l.hash = h;
    l.pos = kFresh;
    l.p2p = p2p;
    links_.push_back(l);
    if (links_.size() * 2 > mask_ + 1) reset_slots(mask_ * 2 + 1);
    return links_.back();
  }

  frame::Dtype size_type_, time_type_;
  std::vector<Link> links_;  // in order of first appearance: of position
  uint32_t max_last_ = 0;    // the largest `last` of links_
  size_t swept_ = 0;         // links_ kept by the last sweep
  size_t mask_ = 1023;
  std::vector<uint32_t> slots_ = std::vector<uint32_t>(1024, kNone);
};

void add_kinds(StreamedMatrix& m, const frame::Frame& rows) {
  for (size_t c = 0; c < rows.columns.size(); ++c) m.kinds[c] |= frame::cell_kinds(rows.columns[c]);
}

// Final links (in position order) into the runs, and their "Total Op Info" rows.
void store_final(StreamedMatrix& m, std::vector<Link>&& links) {
  if (links.empty()) return;
  frame::Frame out = output_frame();
  for (auto& c : out.columns) c.cells.reserve(links.size());
  std::vector<uint64_t> pos;
  pos.reserve(links.size());
  for (const Link& l : links) {
    const frame::Cell row[] = {
        l.step,
        l.op,
        l.group,
        frame::Cell::integer(l.global_src),
        frame::Cell::integer(l.global_dst),
        l.transport,
        l.op_name,
        l.size,
        l.time,
        frame::Cell::real(l.time.num() != 0.0 ? l.size.num() / l.time.num() : 0.0)};
    for (size_t c = 0; c < std::size(row); ++c) out.columns[c].cells.push_back(row[c]);
    pos.push_back(l.pos);
  }
  std::vector<Link>().swap(links);
  std::vector<size_t> first;
  const frame::Frame totals = total_rows(out, &first);
  std::vector<uint64_t> total_pos;
  for (size_t r : first) total_pos.push_back(pos[r]);
  add_kinds(m, out);
  add_kinds(m, totals);
  m.links.add(out, pos);
  m.totals.add(totals, total_pos);
}

}  // namespace

std::unique_ptr<StreamedMatrix> stream_matrix(std::vector<RankPartial>& parts,
                                              std::shared_ptr<runtime::SpillFile> file) {
  auto m = std::make_unique<StreamedMatrix>(std::move(file));
  std::vector<RankPartial*> ranks;
  for (auto& p : parts)
    if (p.used && frame_rows(p, "matrix") > 0) ranks.push_back(&p);
  // The rank map and the partitions each rank touches: from the rows kept beside a parked frame
  // (read back when there are none), from the frame when held.
  RankMap rank_map;
  std::vector<std::vector<std::pair<frame::Cell, frame::Cell>>> touches(ranks.size());
  for (size_t i = 0; i < ranks.size(); ++i) {
    RankPartial* p = ranks[i];
    const frame::Frame* rows = nullptr;
    frame::Frame read;
    if (auto it = p->frames.find("matrix"); it != p->frames.end()) {
      rows = &it->second;
    } else {
      for (const ParkedFrame& f : p->parked)
        if (f.key == "matrix" && f.has_beside()) {
          read = f.beside_rows();
          rows = &read;
        }
      if (!rows) {
        read = read_frame(*p, "matrix");
        rows = &read;
      }
    }
    add_local_ranks(rank_map, *rows, p->rank);
    touches[i] = touched(*rows);
  }
  LastRank last;
  for (size_t i = 0; i < ranks.size(); ++i)
    for (const auto& [group, src] : touches[i]) {
      auto it = rank_map.find(group);
      const int* g = it == rank_map.end() ? nullptr : it->second.find(src);
      if (g) last[{group, *g}] = static_cast<uint32_t>(i);
    }
  touches = {};
  const std::vector<ColumnKinds> columns = concat_columns(parts, "matrix", true);
  auto dtype_of = [&](const std::string& name) {
    for (const ColumnKinds& c : columns)
      if (*c.name == name) return frame::dtype_of_kinds(c.kinds, c.force_object);
    return frame::Dtype::kObject;
  };
  LinkTable table(dtype_of("transit_size"), dtype_of("transit_time"));
  uint64_t total = 0;
  for (RankPartial* p : ranks) total += frame_rows(*p, "matrix");
  const uint64_t step = total / 16 + 1;
  uint64_t moved = 0, next_release = step;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const frame::Frame f = take_frame(*ranks[i], "matrix");
    moved += f.rows();
    const auto place = static_cast<uint32_t>(i);
    table.add(f, place, rank_map, last);
    store_final(*m, table.take_final(place, i + 1 == ranks.size()));
    if (moved >= next_release) {
      runtime::release_freed_memory();
      next_release = moved + step;
    }
  }
  m->links.finish();
  m->totals.finish();
  return m;
}

namespace {

// Calls put(rows) for every row of `m` in table order, a few thousand rows at a time.
template <class Put>
void read_back(const StreamedMatrix& m, Put put) {
  std::vector<std::vector<frame::Cell>> cells;
  for (const SortedRuns* runs : {&m.links, &m.totals}) {
    SortedRuns::Merger merger(*runs);
    while (merger.next(cells, 4096)) {
      frame::Frame rows = output_frame();
      for (size_t c = 0; c < rows.columns.size(); ++c) rows.columns[c].cells = std::move(cells[c]);
      put(rows);
    }
  }
}

}  // namespace

frame::Frame collect_matrix(const StreamedMatrix& m) {
  frame::Frame out = output_frame();
  for (auto& c : out.columns) c.cells.reserve(m.rows());
  read_back(m, [&](const frame::Frame& rows) {
    for (size_t c = 0; c < rows.columns.size(); ++c)
      out.columns[c].cells.insert(out.columns[c].cells.end(), rows.columns[c].cells.begin(),
                                  rows.columns[c].cells.end());
  });
  return out;
}

bool write_streamed_matrix(const StreamedMatrix& m, const std::string& db, io::Diagnostics& diag) {
  const frame::Frame shape = output_frame();
  std::vector<ColumnKinds> columns;
  for (size_t c = 0; c < shape.columns.size(); ++c) {
    uint8_t kinds = m.kinds[c];
    if (c == 3 || c == 4) kinds = frame::kind_bit(frame::Cell::Kind::kReal);  // made REAL
    columns.push_back(
        {frame::intern_text(shape.columns[c].name), kinds, shape.columns[c].force_object});
  }
  FrameTableStream table(db, "ClusterCommunicationMatrix", columns, diag);
  bool ok = true;
  try {
    read_back(m, [&](frame::Frame& rows) {
      if (!ok) return;
      for (size_t c : {3, 4})
        for (auto& cell : rows.columns[c].cells) cell = frame::Cell::real(cell.num());
      ok = table.add(rows);
    });
  } catch (const std::runtime_error& e) {
    diag.error(db, 0, std::string("communication_matrix_sum: ") + e.what(),
               "check the free space of the temporary directory ($TMPDIR)");
    return false;
  }
  return ok && table.finish();
}

}  // namespace cs::recipes::communication_matrix_sum
