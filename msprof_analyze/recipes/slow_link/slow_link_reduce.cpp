#include "msprof_analyze/recipes/slow_link/slow_link_reduce.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "frame/duration_stats.h"
#include "frame/frame_ops.h"
#include "frame/pandas_sort.h"
#include "frame/text_pool.h"
#include "msprof_analyze/recipes/cell_pair_index.h"
#include "msprof_analyze/recipes/frame_writers.h"
#include "msprof_analyze/recipes/parked_frames.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"
#include "msprof_analyze/recipes/rows_by_group.h"
#include "msprof_analyze/recipes/slow_link/slow_link.h"

namespace cs::recipes::slow_link {

namespace {

const frame::Cell kNull;

bool is_point_to_point(const frame::Cell& op) {
  const std::string& s = op.str();
  return s.find("send") != std::string::npos || s.find("receive") != std::string::npos;
}

// The key text of a group, as pandas formats its index values: an int as itself, a float as its
// repr (a data size column with NULLs is float), text as is.
std::string key_text(const frame::Cell& c) {
  if (c.kind == frame::Cell::Kind::kText) return c.str();
  if (c.kind == frame::Cell::Kind::kInt) return std::to_string(c.i());
  return frame::csv_cell(c, frame::Dtype::kFloat64);
}

// One rank's frame's columns by name (nullptr: the rank lacks it, its cells NULL).
struct RankColumns {
  explicit RankColumns(const frame::Frame& f)
      : rank(frame::find_column(f, "rankId")),
        group(frame::find_column(f, "groupName")),
        time(frame::find_column(f, "communicationTime")),
        op(frame::find_column(f, "opName")),
        type(frame::find_column(f, "opType")),
        size(frame::find_column(f, "dataSize")) {}
  static const frame::Cell& at(const frame::FrameColumn* c, size_t r) {
    return c ? c->cells[r] : kNull;
  }
  const frame::FrameColumn *rank, *group, *time, *op, *type, *size;
};

// A collective instance (group name, op name): its shortest duration and number of ranks.
struct Instance {
  int64_t shortest = 0;
  int64_t ranks = 0;
};

// A group (op type, data size, ranks taking part) and what the verdict and SlowLinkSum need.
struct Group {
  frame::Cell type, size, related;  // its first row's keys
  std::vector<double> transmit;     // every row's transmit time, in row order
  int64_t total = 0;
  int64_t longest = 0, shortest = 0;
  frame::Cell longest_rank, shortest_rank;  // (the first row with each)
  std::vector<uint8_t> kinds;               // per input column: the kinds of its cells
};

// The whole walk's state.
struct Reduce {
  std::vector<ColumnKinds> columns;  // the concatenation's columns (pd.concat's union)
  CellPairIndex instance_at;         // (group name, op name) -> its place in `instances`
  std::vector<Instance> instances;
  std::unordered_map<std::string, uint32_t> group_at;
  std::vector<Group> groups;  // in order of first appearance
  bool any_null_size = false;

  // Row r's transmit time and number of ranks (0 and 0 for send/receive).
  std::pair<int64_t, int64_t> transmit(const RankColumns& c, size_t r) const {
    if (is_point_to_point(RankColumns::at(c.op, r))) return {0, 0};
    const int64_t k = instance_at.find(RankColumns::at(c.group, r), RankColumns::at(c.op, r));
    if (k < 0)
      throw std::logic_error("slow_link: a collective instance not seen by the first walk");
    const Instance& i = instances[static_cast<size_t>(k)];
    return {i.shortest, i.ranks};
  }
  // Row r's group, or -1 for a NULL key.
  int64_t group_of(const RankColumns& c, size_t r, int64_t related) const {
    const frame::Cell& type = RankColumns::at(c.type, r);
    const frame::Cell& size = RankColumns::at(c.size, r);
    if (type.is_null() || size.is_null()) return -1;
    auto it = group_at.find(frame::cell_key(type) + '\x1f' + frame::cell_key(size) + '\x1f' +
                            std::to_string(related));
    return it == group_at.end() ? -1 : it->second;
  }
  // The cell of the output column `col` (an input column; `src` its column in the rank's frame,
  // nullptr when the frame lacks it) of row r.
  frame::Cell out_cell(const frame::FrameColumn* src, size_t col, size_t r) const {
    if (!src) return frame::Cell::null();
    const frame::Cell& c = src->cells[r];
    if (any_null_size && *columns[col].name == "dataSize") return frame::Cell::real(c.num());
    return c;
  }
};

// First walk: each collective instance's shortest duration and number of ranks.
void find_instances(const std::vector<RankPartial>& parts, Reduce& s) {
  for_each_rank_frame(parts, "rows", [&](const frame::Frame& f) {
    const RankColumns c(f);
    for (size_t r = 0; r < f.rows(); ++r) {
      if (RankColumns::at(c.size, r).is_null()) s.any_null_size = true;
      if (is_point_to_point(RankColumns::at(c.op, r))) continue;
      const int64_t t = RankColumns::at(c.time, r).i();
      const auto [k, fresh] =
          s.instance_at.find_or_add(RankColumns::at(c.group, r), RankColumns::at(c.op, r));
      if (fresh) s.instances.push_back(Instance{t, 0});
      Instance& i = s.instances[k];
      i.shortest = std::min(i.shortest, t);
      ++i.ranks;
    }
  });
}

// Second walk: the groups, their transmit times and the kinds of their cells.
void find_groups(const std::vector<RankPartial>& parts, Reduce& s) {
  for_each_rank_frame(parts, "rows", [&](const frame::Frame& f) {
    const RankColumns c(f);
    std::vector<const frame::FrameColumn*> cols;
    for (const ColumnKinds& k : s.columns) cols.push_back(frame::find_column(f, *k.name));
    for (size_t r = 0; r < f.rows(); ++r) {
      const frame::Cell& type = RankColumns::at(c.type, r);
      const frame::Cell& size = RankColumns::at(c.size, r);
      if (type.is_null() || size.is_null()) continue;
      const auto [t, related] = s.transmit(c, r);
      const std::string key =
          frame::cell_key(type) + '\x1f' + frame::cell_key(size) + '\x1f' + std::to_string(related);
      auto [it, fresh] = s.group_at.try_emplace(key, static_cast<uint32_t>(s.groups.size()));
      const frame::Cell& rank = RankColumns::at(c.rank, r);
      if (fresh) {
        Group g;
        g.type = type;
        g.size = size;
        g.related = frame::Cell::integer(related);
        g.longest = g.shortest = t;
        g.longest_rank = g.shortest_rank = rank;
        g.kinds.assign(s.columns.size(), 0);
        s.groups.push_back(std::move(g));
      }
      Group& g = s.groups[it->second];
      g.transmit.push_back(static_cast<double>(t));
      g.total += t;
      if (t > g.longest) g.longest = t, g.longest_rank = rank;
      if (t < g.shortest) g.shortest = t, g.shortest_rank = rank;
      for (size_t k = 0; k < cols.size(); ++k) {
        const frame::Cell& cell = cols[k] ? cols[k]->cells[r] : kNull;
        const bool real = s.any_null_size && *s.columns[k].name == "dataSize";
        g.kinds[k] |= frame::kind_bit(real ? frame::Cell::Kind::kReal : cell.kind);
      }
    }
  });
}

// SlowLinkSum of the kept groups (in table order): describe_duration's statistics of each
// group's transmit times with msprof-analyze's own columns, the first top_num by offset ratio.
frame::Frame slow_link_sum(const Reduce& s, const std::vector<uint32_t>& kept, int top_num) {
  static const char* kStats[] = {"Count",    "MeanNs", "StdNs", "MinNs", "Q1Ns",
                                 "MedianNs", "Q3Ns",   "MaxNs", "SumNs"};
  frame::Frame sum;
  auto& name = sum.add("opTypeRelatedRanksDataSize");
  for (const char* st : kStats) sum.add(st);
  auto& ratio = sum.add("offsetRatio");
  auto& max_rank = sum.add("maxRank");
  auto& min_rank = sum.add("minRank");
  for (uint32_t gi : kept) {
    const Group& g = s.groups[gi];
    const frame::Cell size = s.any_null_size ? frame::Cell::real(g.size.num()) : g.size;
    name.push_back(
        frame::Cell::text(key_text(g.type) + key_text(g.related) + "_" + key_text(size)));
    std::vector<frame::Cell> stats = frame::duration_stats(g.transmit);
    stats[3] = frame::Cell::integer(g.shortest);
    stats[7] = frame::Cell::integer(g.longest);
    stats[8] = frame::Cell::integer(g.total);
    const double mean = stats[1].num(), sd = stats[2].num();
    for (size_t k = 0; k < stats.size(); ++k) sum.columns[1 + k].push_back(stats[k]);
    const double far = std::fmax(std::fabs(static_cast<double>(g.longest) - mean),
                                 std::fabs(static_cast<double>(g.shortest) - mean));
    ratio.push_back(frame::Cell::real(far / sd));
    max_rank.push_back(g.longest_rank);
    min_rank.push_back(g.shortest_rank);
  }
  // By offset ratio, largest first (NaN last), the first top_num.
  std::vector<size_t> valid, order;
  for (size_t r = 0; r < sum.rows(); ++r)
    if (!std::isnan(ratio.cells[r].num())) valid.push_back(r);
  for (size_t i : frame::pandas_sort_order(
           valid.size(),
           [&](size_t a, size_t b) {
             return ratio.cells[valid[a]].num() < ratio.cells[valid[b]].num();
           },
           false))
    order.push_back(valid[i]);
  for (size_t r = 0; r < sum.rows(); ++r)
    if (std::isnan(ratio.cells[r].num())) order.push_back(r);
  const size_t top = static_cast<size_t>(top_num > 0 ? top_num : 15);
  if (order.size() > top) order.resize(top);
  return frame::take(sum, order);
}

// SlowLinkOps: the kept groups' rows, group after group, each group's in row order. One walk
// sorts the kept rows into their groups (on disk past `batch_rows` rows), then each group's rows
// are written in runs of at most `batch_rows`. The instances are freed after the walk.
bool write_slow_link_ops(const std::vector<RankPartial>& parts, Reduce& s,
                         const std::vector<uint32_t>& kept, const std::string& db,
                         size_t batch_rows, io::Diagnostics& diag) {
  std::vector<ColumnKinds> columns = s.columns;
  for (ColumnKinds& k : columns) k.kinds = 0;
  columns.push_back({frame::intern_text("transmitTime"), 0, false});
  columns.push_back({frame::intern_text("relatedRanks"), 0, false});
  constexpr uint32_t kNotKept = UINT32_MAX;
  std::vector<uint32_t> slot(s.groups.size(), kNotKept);  // a group's place among the kept
  for (uint32_t i = 0; i < kept.size(); ++i) {
    slot[kept[i]] = i;
    for (size_t k = 0; k < s.columns.size(); ++k) columns[k].kinds |= s.groups[kept[i]].kinds[k];
  }
  const uint8_t int_bit = frame::kind_bit(frame::Cell::Kind::kInt);
  columns[s.columns.size()].kinds = columns[s.columns.size() + 1].kinds = int_bit;
  const size_t width = columns.size();
  RowsByGroup rows(kept.size(), sizeof(frame::Cell), width, batch_rows);
  std::vector<frame::Cell> row(width);
  for_each_rank_frame(parts, "rows", [&](const frame::Frame& f) {
    const RankColumns c(f);
    std::vector<const frame::FrameColumn*> cols;
    for (const ColumnKinds& k : s.columns) cols.push_back(frame::find_column(f, *k.name));
    for (size_t r = 0; r < f.rows(); ++r) {
      const auto [t, related] = s.transmit(c, r);
      const int64_t g = s.group_of(c, r, related);
      if (g < 0 || slot[g] == kNotKept) continue;
      for (size_t k = 0; k < s.columns.size(); ++k) row[k] = s.out_cell(cols[k], k, r);
      row[width - 2] = frame::Cell::integer(t);
      row[width - 1] = frame::Cell::integer(related);
      rows.add(slot[g], row.data());
    }
  });
  s.instance_at = {};
  s.instances = {};
  if (!rows.problem().empty())
    diag.warn(db, 0, "slow_link: SlowLinkOps' rows held in memory: " + rows.problem(),
              "free space in the temporary directory ($TMPDIR) saves the root's memory");
  FrameTableStream out(db, "SlowLinkOps", columns, diag);
  const size_t batch = std::max<size_t>(batch_rows, 1);
  frame::Frame chunk;
  for (const ColumnKinds& k : columns) chunk.add(*k.name);
  const auto flush = [&] {
    const bool ok = chunk.rows() == 0 || out.add(chunk);
    for (frame::FrameColumn& col : chunk.columns) col.cells.clear();
    return ok;
  };
  bool ok = true;
  for (uint32_t i = 0; i < kept.size() && ok; ++i) {
    rows.for_each_run<frame::Cell>(i, [&](std::span<const frame::Cell> cells) {
      for (size_t at = 0; at < cells.size() && ok; at += width) {
        for (size_t k = 0; k < width; ++k) chunk.columns[k].cells.push_back(cells[at + k]);
        if (chunk.rows() >= batch) ok = flush();
      }
    });
  }
  return ok && flush() && out.finish();
}

}  // namespace

bool reduce_slow_links(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                       io::Diagnostics& diag, size_t batch_rows) {
  const std::string db = out.db_path("SlowLink");
  try {
    Reduce s;
    s.columns = concat_columns(parts, "rows");
    find_instances(parts, s);
    find_groups(parts, s);
    // The groups in groupby's sorted order, those with a transmit-time outlier kept.
    std::vector<uint32_t> order(s.groups.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const Group &x = s.groups[a], &y = s.groups[b];
      int c = frame::compare_cells(x.type, y.type);
      if (c == 0) c = frame::compare_cells(x.size, y.size);
      if (c == 0) c = frame::compare_cells(x.related, y.related);
      return c < 0;
    });
    std::vector<uint32_t> kept;
    for (uint32_t g : order)
      if (has_z_score_outlier(s.groups[g].transmit)) kept.push_back(g);
    if (kept.empty()) return true;  // nothing slow: nothing written
    if (!dump_recipe_frame(slow_link_sum(s, kept, out.top_num), out, "SlowLink", "", "SlowLinkSum",
                           diag))
      return false;
    for (Group& g : s.groups) std::vector<double>().swap(g.transmit);  // the sum had the last use
    return write_slow_link_ops(parts, s, kept, db, batch_rows, diag);
  } catch (const std::runtime_error& e) {
    diag.error(db, 0, std::string("slow_link: ") + e.what(),
               "check the free space of the temporary directory ($TMPDIR)");
    return false;
  }
}

}  // namespace cs::recipes::slow_link
