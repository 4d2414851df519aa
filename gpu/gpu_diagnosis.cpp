#include "gpu/gpu_diagnosis.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace cs::gpu {

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct RankTotals {
  double computing = 0, free = 0, window = 0;
};

RankTotals totals(const GpuRankSummary& r) {
  RankTotals t;
  for (const auto& s : r.steps) {
    t.computing += static_cast<double>(s.computing_ns);
    t.free += static_cast<double>(s.free_ns);
    t.window += static_cast<double>(s.window_ns);
  }
  return t;
}

// The step between a group's ranks when even ("[0, 4, 8]" -> 4), else 0; the members when the
// ranks are not written.
int64_t stride(const CollectiveInstance& in) {
  std::vector<int64_t> r;
  int64_t cur = -1;
  for (char c : in.group_ranks) {
    if (c >= '0' && c <= '9') {
      cur = (cur < 0 ? 0 : cur * 10) + (c - '0');
    } else if (cur >= 0) {
      r.push_back(cur);
      cur = -1;
    }
  }
  if (cur >= 0) r.push_back(cur);
  if (r.empty()) r.assign(in.members.begin(), in.members.end());
  if (r.size() < 2) return 0;
  const int64_t d = r[1] - r[0];
  for (size_t i = 2; i < r.size(); ++i)
    if (r[i] - r[i - 1] != d) return 0;
  return d;
}

}  // namespace

std::vector<SlowRank> find_slow_ranks(const std::vector<GpuRankSummary>& ranks,
                                      const std::vector<RankWait>& waits,
                                      const std::vector<CollectiveInstance>& inst) {
  std::map<int, size_t> index;
  std::vector<RankTotals> t;
  for (const auto& r : ranks) {
    index[r.rank] = t.size();
    t.push_back(totals(r));
  }
  std::vector<SlowRank> out;
  for (size_t i = 0; i < ranks.size() && i < waits.size(); ++i) {
    const RankWait& w = waits[i];
    if (w.matched < 2) continue;
    const double frac = static_cast<double>(w.last_arrivals) / static_cast<double>(w.matched);
    const double share = t[i].window > 0 ? static_cast<double>(w.blame_ns) / t[i].window : 0;
    if (frac < 0.8 || share < 0.02) continue;
    std::set<int> peers;
    for (const auto& in : inst)
      if (in.ranks >= 2 && std::binary_search(in.members.begin(), in.members.end(), w.rank))
        for (int m : in.members)
          if (m != w.rank) peers.insert(m);
    std::vector<double> comp, fr;
    for (int p : peers) {
      auto it = index.find(p);
      if (it == index.end()) continue;
      comp.push_back(t[it->second].computing);
      fr.push_back(t[it->second].free);
    }
    const double med_comp = median(comp), med_free = median(fr);
    SlowRank s;
    s.rank = w.rank;
    s.last_fraction = frac;
    s.blame_ns = w.blame_ns;
    s.blame_share = share;
    s.computing_ratio = med_comp > 0 ? t[i].computing / med_comp : 0;
    if (s.computing_ratio >= 1.03)
      s.cause = "compute";
    else if (t[i].free > med_free * 1.03 + 1e3)
      s.cause = "host";
    else
      s.cause = "unknown";
    out.push_back(s);
  }
  return out;
}

std::vector<SlowGroup> find_slow_groups(const std::vector<CollectiveInstance>& inst) {
  // Time per byte of each group's instances (of 2+ ranks, with a known size).
  std::map<std::pair<std::string, std::string>, std::vector<double>> per_group;
  std::map<std::pair<std::string, std::string>, const CollectiveInstance*> sample;
  for (const auto& in : inst) {
    if (in.ranks < 2 || in.bytes <= 0 || in.latency_ns <= 0) continue;
    per_group[{in.type, in.group}].push_back(static_cast<double>(in.latency_ns) /
                                             static_cast<double>(in.bytes));
    sample.emplace(std::make_pair(in.type, in.group), &in);
  }
  // Kinds: groups comparable with each other: the same type, size, rank stride (TP, DP and PP
  // groups differ in it, and so do their links) and message size (power of two).
  std::map<std::pair<std::string, int64_t>, std::vector<std::pair<std::string, double>>> kinds;
  for (auto& [key, v] : per_group) {
    const CollectiveInstance* in = sample[key];
    const int bucket =
        in->bytes > 0 ? static_cast<int>(std::log2(static_cast<double>(in->bytes))) : -1;
    const std::string kind =
        key.first + "/" + std::to_string(stride(*in)) + "/" + std::to_string(bucket);
    kinds[{kind, in->group_size}].push_back({key.second, median(v)});
  }
  std::vector<SlowGroup> out;
  for (auto& [kind, groups] : kinds) {
    if (groups.size() < 3) continue;
    std::vector<double> vals;
    for (auto& g : groups) vals.push_back(g.second);
    const double med = median(vals);
    if (med <= 0) continue;
    for (auto& [name, v] : groups) {
      if (v < 1.5 * med) continue;
      SlowGroup s;
      s.group = name;
      s.type = sample[{kind.first.substr(0, kind.first.find('/')), name}]->type;
      s.group_size = kind.second;
      s.ns_per_byte = v;
      s.ratio = v / med;
      s.group_ranks = sample[{s.type, name}]->group_ranks;
      out.push_back(s);
    }
  }
  // The link: the ranks every slow group (of a kind) shares, when exactly two.
  std::map<std::pair<std::string, int64_t>, std::vector<SlowGroup*>> slow_by_kind;
  for (auto& s : out) slow_by_kind[{s.type, s.group_size}].push_back(&s);
  for (auto& [kind, v] : slow_by_kind) {
    std::set<int> common;
    bool first = true;
    for (SlowGroup* s : v) {
      const CollectiveInstance* in = sample[{s->type, s->group}];
      std::set<int> m(in->members.begin(), in->members.end());
      if (first) {
        common = m;
        first = false;
      } else {
        std::set<int> keep;
        for (int r : common)
          if (m.count(r)) keep.insert(r);
        common = keep;
      }
    }
    if (common.size() == 2) {
      std::ostringstream os;
      os << *common.begin() << "-" << *common.rbegin();
      for (SlowGroup* s : v) s->link = os.str();
    }
  }
  return out;
}

}  // namespace cs::gpu
