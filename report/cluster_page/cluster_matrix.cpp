// Communication-matrix section of the cluster report: a bandwidth heatmap per communication group.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>

#include "io/comm_keys.h"
#include "report/cluster_page/cluster_sections.h"
#include "report/cluster_page/matrix_digest.h"
#include "report/display_format.h"
#include "report/report_page.h"
#include "report/svg_charts.h"
#include "report/table_view.h"

namespace cs::report {

namespace {

constexpr size_t kMaxGrid = 64;        // cells per side after binning
constexpr size_t kCellBudget = 12000;  // heatmap cells in the whole page
constexpr size_t kMaxHeatmaps = 12;
constexpr size_t kMaxGroupRows = 200;  // table rows; the picker has every group
constexpr size_t kPerSize = 2;  // heatmaps drawn per group size, besides groups with slow links

using Link = DigestLink;
using Group = DigestGroup;

// A group's links summed over one kind of op key, rows in the order they come.
struct Sums {
  std::map<std::pair<long long, long long>, Link> links;
  std::set<std::string, std::less<>> transports;
  std::set<long long> ranks;
  void add(long long s, long long d, double sz, double tm, double b, std::string_view tr) {
    ranks.insert(s);
    ranks.insert(d);
    if (s == d) return;  // a rank's own on-chip link
    Link& l = links[{s, d}];
    if (std::isfinite(sz) && std::isfinite(tm)) l.size_mb += sz, l.time_ms += tm;
    if (std::isfinite(b)) l.bw_sum += b, ++l.bw_n;
    if (!tr.empty() && transports.find(tr) == transports.end()) transports.emplace(tr);
  }
  void clear() { *this = Sums{}; }
  // The links and ranks as flat arrays while no row of the group comes (a third of the map's
  // bytes), and back; the sums stay as they were.
  std::vector<std::pair<std::pair<long long, long long>, Link>> packed_links;
  std::vector<long long> packed_ranks;
  void pack() {
    packed_links.assign(links.begin(), links.end());
    packed_ranks.assign(ranks.begin(), ranks.end());
    links.clear();
    ranks.clear();
  }
  void unpack() {
    links.insert(packed_links.begin(), packed_links.end());
    ranks.insert(packed_ranks.begin(), packed_ranks.end());
    std::vector<std::pair<std::pair<long long, long long>, Link>>().swap(packed_links);
    std::vector<long long>().swap(packed_ranks);
  }
};

// Which op keys a group's links are summed over: its "Total Op Info", else its "-total" keys,
// else all; the kinds not chosen are dropped as soon as a row of a better kind comes.
struct GroupSums {
  bool has_info = false, has_total = false;
  Sums info, total, all;
  // Packed between chunks (MatrixDigestBuilder: a group's rows come in one batch of group
  // tuples, so most groups are never unpacked again until the digest is finished).
  bool packed = false;
  void pack() {
    if (packed) return;
    for (Sums* k : {&info, &total, &all}) k->pack();
    packed = true;
  }
  void unpack() {
    if (!packed) return;
    for (Sums* k : {&info, &total, &all}) k->unpack();
    packed = false;
  }
};

// Which groups get a heatmap, most relevant first: those with slow links, then at most kPerSize
// of each size, within kMaxHeatmaps and the page's cell budget (groups of one size look alike:
// every TP group of a job; draw a few, list the rest).
std::vector<bool> drawn_groups(const std::vector<Group>& groups) {
  size_t cells = 0, drawn = 0;
  std::map<size_t, size_t> drawn_of_size;
  std::vector<bool> out(groups.size(), false);
  for (size_t i = 0; i < groups.size(); ++i) {
    const Group& g = groups[i];
    const size_t side = std::min(g.ranks.size(), kMaxGrid);
    if (g.ranks.size() < 2 || g.link_count == 0) continue;
    if (drawn >= kMaxHeatmaps || cells + side * side > kCellBudget) continue;
    if (!g.slow && drawn_of_size[g.ranks.size()] >= kPerSize) continue;
    ++drawn_of_size[g.ranks.size()];
    cells += side * side;
    ++drawn;
    out[i] = true;
  }
  return out;
}

// Row by row, a chunk at a time: the same sums as over the whole table when each (group, link)'s
// rows come in the same order.
void add_rows(std::map<std::string, GroupSums, std::less<>>& by_group, const io::Table* t) {
  const ColumnRef group(t, "group"), op(t, "op"), src(t, "src_rank"), dst(t, "dst_rank"),
      tr(t, "transport"), size(t, "size_mb"), time(t, "time_ms"), bw(t, "bandwidth_gbps");
  // Per distinct op key: {is "Total Op Info", is a "-total" key}.
  std::unordered_map<std::string_view, std::pair<bool, bool>> op_kind;
  auto kind = [&](size_t r) {
    auto [it, added] = op_kind.try_emplace(op.text(r));
    if (added) it->second = {io::is_total_op_info(it->first), io::is_matrix_total_key(it->first)};
    return it->second;
  };
  GroupSums* g = nullptr;
  std::string_view g_name;
  for (size_t r = 0; r < rows(t); ++r) {
    const std::string_view name = group.text(r);
    if (!g || name != g_name) {
      auto it = by_group.find(name);
      if (it == by_group.end()) it = by_group.emplace(std::string(name), GroupSums{}).first;
      g = &it->second;
      g->unpack();
      g_name = name;
    }
    const auto [info, total] = kind(r);
    Sums* into = nullptr;
    if (info) {
      if (!g->has_info) g->total.clear(), g->all.clear();
      g->has_info = true;
      into = &g->info;
    } else if (total) {
      if (!g->has_total) g->all.clear();
      g->has_total = true;
      if (!g->has_info) into = &g->total;
    } else if (!g->has_info && !g->has_total) {
      into = &g->all;
    }
    const long long s = src.integer(r), d = dst.integer(r);
    if (!into || s < 0 || d < 0) continue;
    into->add(s, d, size.num(r), time.num(r), bw.num(r), tr.text(r));
  }
}

std::vector<Group> finish_groups(std::map<std::string, GroupSums, std::less<>>& by_group,
                                 const ClusterContext& ctx) {
  std::vector<Group> out;
  for (auto& [name, sums] : by_group) {
    sums.unpack();
    Group g;
    g.name = name;
    g.ops_used = sums.has_info    ? "\u201cTotal Op Info\u201d"
                 : sums.has_total ? "the \u201c-total\u201d op keys, summed"
                                  : "every op key, summed";
    Sums& chosen = sums.has_info ? sums.info : sums.has_total ? sums.total : sums.all;
    g.links = std::move(chosen.links);
    g.link_count = g.links.size();
    g.transports.insert(chosen.transports.begin(), chosen.transports.end());
    g.ranks.assign(chosen.ranks.begin(), chosen.ranks.end());
    chosen.clear();
    std::vector<double> bws;
    for (const auto& [key, l] : g.links) {
      if (std::isfinite(l.bandwidth())) bws.push_back(l.bandwidth());
      if (ctx.slow_links.count(key)) ++g.slow;
    }
    if (!bws.empty()) {
      std::sort(bws.begin(), bws.end());
      g.bw_min = bws.front();
      g.bw_max = bws.back();
      const size_t m = bws.size();
      g.bw_median = m % 2 ? bws[m / 2] : 0.5 * (bws[m / 2 - 1] + bws[m / 2]);
    }
    out.push_back(std::move(g));
  }
  // Most relevant first: groups with slow links, then the largest, then the most uneven.
  const auto uneven = [](const Group& g) { return g.bw_median > 0 ? g.bw_min / g.bw_median : 1.0; };
  std::sort(out.begin(), out.end(), [&](const Group& a, const Group& b) {
    if (a.slow != b.slow) return a.slow > b.slow;
    if (a.ranks.size() != b.ranks.size()) return a.ranks.size() > b.ranks.size();
    if (uneven(a) != uneven(b)) return uneven(a) < uneven(b);
    return a.name < b.name;
  });
  const std::vector<bool> drawn = drawn_groups(out);
  for (size_t i = 0; i < out.size(); ++i)
    if (!drawn[i]) std::map<std::pair<long long, long long>, Link>().swap(out[i].links);
  return out;
}

std::vector<Group> build_groups(const io::Table* t, const ClusterContext& ctx) {
  std::map<std::string, GroupSums, std::less<>> by_group;
  add_rows(by_group, t);
  return finish_groups(by_group, ctx);
}

}  // namespace

struct MatrixDigestBuilder::State {
  std::map<std::string, GroupSums, std::less<>> by_group;
};

MatrixDigestBuilder::MatrixDigestBuilder() : s_(std::make_unique<State>()) {}
MatrixDigestBuilder::~MatrixDigestBuilder() = default;

void MatrixDigestBuilder::add(const io::Table& rows) {
  add_rows(s_->by_group, &rows);
  for (auto& [name, sums] : s_->by_group) sums.pack();
}

std::shared_ptr<const MatrixDigest> MatrixDigestBuilder::finish(const io::Table* slow_links) {
  ClusterReportInput in;
  in.slow_links = slow_links;
  auto d = std::make_shared<MatrixDigest>();
  d->groups = finish_groups(s_->by_group, make_cluster_context(in));
  s_->by_group.clear();
  return d;
}

std::shared_ptr<const MatrixDigest> digest_matrix(const io::Table& communication_matrix,
                                                  const io::Table* slow_links) {
  MatrixDigestBuilder b;
  b.add(communication_matrix);
  return b.finish(slow_links);
}

namespace {

HeatGrid make_grid(const Group& g, const ClusterContext& ctx) {
  const size_t n = g.ranks.size();
  const size_t bins = std::min(n, kMaxGrid);
  std::map<long long, size_t> bin_of;
  for (size_t i = 0; i < n; ++i) bin_of[g.ranks[i]] = i * bins / n;
  HeatGrid grid;
  grid.n = bins;
  grid.labels.resize(bins);
  for (size_t b = 0; b < bins; ++b) {
    // Ranks of bin b: positions [ceil(b*n/bins), ceil((b+1)*n/bins)).
    const size_t first = (b * n + bins - 1) / bins, last = ((b + 1) * n + bins - 1) / bins - 1;
    grid.labels[b] =
        first == last ? std::to_string(g.ranks[first])
                      : std::to_string(g.ranks[first]) + "\u2013" + std::to_string(g.ranks[last]);
  }
  std::vector<Link> cells(bins * bins);
  std::vector<char> has(bins * bins, 0);
  grid.marked.assign(bins * bins, 0);
  for (const auto& [key, l] : g.links) {
    const size_t c = bin_of[key.first] * bins + bin_of[key.second];
    cells[c].size_mb += l.size_mb;
    cells[c].time_ms += l.time_ms;
    cells[c].bw_sum += l.bw_sum;
    cells[c].bw_n += l.bw_n;
    has[c] = 1;
    if (ctx.slow_links.count(key)) grid.marked[c] = 1;
  }
  grid.values.assign(bins * bins, std::nan(""));
  for (size_t c = 0; c < cells.size(); ++c)
    if (has[c]) grid.values[c] = cells[c].bandwidth();
  return grid;
}

// A finite number for JSON with two decimals (0 when not finite).
std::string json_num(double v) {
  if (!std::isfinite(v)) return "0";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string gbps(double v) {
  return fmt_num(v, 2) + " GB/s";
}

}  // namespace

std::map<std::string, std::vector<long long>> group_ranks(const ClusterReportInput& in) {
  std::map<std::string, std::vector<long long>> out;
  const ColumnRef group(in.comm_rank_summary, "group"), rank(in.comm_rank_summary, "rank");
  for (size_t r = 0; r < rows(in.comm_rank_summary); ++r)
    if (const long long rk = rank.integer(r); rk >= 0) out[group.str(r)].push_back(rk);
  if (in.matrix_digest) {
    for (const Group& g : in.matrix_digest->groups)
      out[g.name].insert(out[g.name].end(), g.ranks.begin(), g.ranks.end());
  } else if (in.communication_matrix) {
    const io::Table* t = in.communication_matrix;
    const ColumnRef mg(t, "group"), src(t, "src_rank"), dst(t, "dst_rank");
    std::map<std::string_view, std::set<long long>> seen;
    for (size_t r = 0; r < rows(t); ++r) {
      auto& s = seen[mg.text(r)];
      if (src.integer(r) >= 0) s.insert(src.integer(r));
      if (dst.integer(r) >= 0) s.insert(dst.integer(r));
    }
    for (const auto& [name, ranks] : seen)
      out[std::string(name)].insert(out[std::string(name)].end(), ranks.begin(), ranks.end());
  }
  return out;
}

void group_cell(HtmlOut& h, const ClusterContext& ctx, const std::string& hash) {
  const std::string& label = ctx.groups.name(hash);
  h.element("td", attr("class", "key grp") + (label != hash ? attr("title", "group " + hash) : ""),
            label);
}

void section_matrix(HtmlOut& h, const ClusterContext& ctx) {
  begin_section(h, "matrix", "Communication matrix");
  const io::Table* t = ctx.in.communication_matrix;
  if (!t && !ctx.in.matrix_digest) {
    not_computed(h, "Communication matrix");
    h.close();
    return;
  }
  std::vector<Group> built;
  if (!ctx.in.matrix_digest) built = build_groups(t, ctx);
  const std::vector<Group>& groups = ctx.in.matrix_digest ? ctx.in.matrix_digest->groups : built;
  if (groups.empty()) {
    note(h, "The communication matrix is empty.");
    h.close();
    return;
  }
  note(h,
       "Bandwidth (transit size / transit time) per source \u2192 destination link over all steps, "
       "one heatmap per communication group; darker is faster, red outlines are slow links. Groups "
       "of more than 64 ranks are binned to 64 \u00d7 64 cells (hover a cell for the ranks it "
       "holds).");
  const std::vector<bool> was_drawn = drawn_groups(groups);
  size_t drawn = 0;
  h.open("div", attr("class", "heats"));
  for (size_t i = 0; i < groups.size(); ++i) {
    const Group& g = groups[i];
    if (!was_drawn[i]) continue;
    ++drawn;
    const HeatGrid grid = make_grid(g, ctx);
    double vmax = 0;
    for (double v : grid.values)
      if (std::isfinite(v)) vmax = std::max(vmax, v);
    h.open("figure", attr("data-group", g.name));
    heatmap_chart(h, grid, vmax, gbps, "Bandwidth heatmap of " + ctx.groups.name(g.name));
    heatmap_legend(h, vmax, gbps);
    std::string tr;
    for (const auto& s : g.transports) tr += (tr.empty() ? "" : ", ") + s;
    h.element("figcaption", attr("title", "group " + g.name),
              ctx.groups.name(g.name) + ": " + std::to_string(g.ranks.size()) + " ranks, " +
                  std::to_string(g.link_count) + " links" + (tr.empty() ? "" : " (" + tr + ")") +
                  "; bandwidth min / median / max " + gbps(g.bw_min) + " / " + gbps(g.bw_median) +
                  " / " + gbps(g.bw_max) + (g.slow ? "; " + std::to_string(g.slow) + " slow" : "") +
                  ". From " + g.ops_used + ".");
    h.close();
  }
  h.close();
  if (drawn < groups.size())
    note(h, std::to_string(drawn) + " of " + std::to_string(groups.size()) +
                " groups drawn: those with slow links, then at most two of each size, largest and "
                "most uneven first. Pick any group below (the slow links' groups first) for its "
                "numbers "
                "and heatmap; the table lists the first " +
                std::to_string(kMaxGroupRows) + ".");
  h.element("h3", "", "Groups");
  // The picker: every group, slow links' groups first, as compact JSON (index into the page
  // data's group names, ranks, links, bandwidth min / median / max, slow links); the page script
  // fills the <select> and shows the picked group's numbers, row and heatmap.
  std::string j = "[";
  bool first = true;
  for (size_t i = 0; i < groups.size(); ++i) {
    const Group& g = groups[i];
    const long long gi = ctx.groups.index(g.name);
    if (gi < 0) continue;
    j += (first ? "[" : ",[") + std::to_string(gi) + "," + std::to_string(g.ranks.size()) + "," +
         std::to_string(g.link_count) + "," + json_num(g.bw_min) + "," + json_num(g.bw_median) +
         "," + json_num(g.bw_max) + "," + std::to_string(g.slow) + "," +
         (was_drawn[i] ? "1" : "0") + "]";
    first = false;
  }
  h.open("script", attr("type", "application/json") + attr("id", "cs-groups"));
  h.raw(j + "]");
  h.close();
  h.open("div", attr("class", "gpick"));
  h.element("label", attr("for", "gsel"), "Pick any group: ");
  h.element("select", attr("id", "gsel") + attr("aria-label", "Pick a communication group"), "");
  h.element("p", attr("class", "note") + attr("id", "gsum"), "");
  h.close();
  h.open("table");
  table_head(h, {"group", "#ranks", "#links", "transports", "#min GB/s", "#median GB/s",
                 "#max GB/s", "#slow links", "drawn"});
  h.open("tbody");
  for (size_t i = 0; i < groups.size() && i < kMaxGroupRows; ++i) {
    const Group& g = groups[i];
    h.open("tr", attr("data-group", g.name) + (g.slow ? attr("class", "flag") : std::string()));
    group_cell(h, ctx, g.name);
    num_cell(h, std::to_string(g.ranks.size()));
    num_cell(h, std::to_string(g.link_count));
    std::string tr;
    for (const auto& s : g.transports) tr += (tr.empty() ? "" : ", ") + s;
    h.element("td", "", tr);
    num_cell(h, fmt_num(g.bw_min, 2));
    num_cell(h, fmt_num(g.bw_median, 2));
    num_cell(h, fmt_num(g.bw_max, 2));
    num_cell(h, std::to_string(g.slow));
    h.element("td", "", was_drawn[i] ? "yes" : "");
    h.close();
  }
  h.close();
  h.close();
  if (groups.size() > kMaxGroupRows)
    note(h, "\u2026 and " + std::to_string(groups.size() - kMaxGroupRows) +
                " more groups: see the communication_matrix table (cluster_analysis.h5; "
                "communication_matrix.csv with --op-tables csv).");
  h.close();
}

}  // namespace cs::report
