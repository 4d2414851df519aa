#include "generator/job/topology.h"

#include <algorithm>
#include <cstdlib>

#include "generator/job/group_hash.h"

namespace cs::generator {

const char* group_kind_name(GroupKind k) {
  switch (k) {
    case GroupKind::kTp:
      return "tp";
    case GroupKind::kDp:
      return "dp";
    case GroupKind::kPp:
      return "pp";
  }
  return "?";
}

const char* transport_name(Transport t) {
  switch (t) {
    case Transport::kHccs:
      return "HCCS";
    case Transport::kRdma:
      return "RDMA";
    case Transport::kLocal:
      return "LOCAL";
  }
  return "?";
}

std::string node_host(int r) {
  std::string n = std::to_string(Topology::node(r));
  return "devnode-" + std::string(n.size() < 4 ? 4 - n.size() : 0, '0') + n;
}

std::string node_ip(int r) {
  int n = Topology::node(r);
  return "10.170." + std::to_string(22 + n / 250) + "." + std::to_string(n % 250 + 1);
}

int Topology::local_rank(int g, int r) const {
  const auto& v = groups[static_cast<size_t>(g)].ranks;
  auto it = std::lower_bound(v.begin(), v.end(), r);
  return it != v.end() && *it == r ? static_cast<int>(it - v.begin()) : -1;
}

bool Topology::linked(int a, int b) const {
  if (a == b || a < 0 || b < 0 || a >= ranks || b >= ranks) return false;
  for (int g : {tp_group[static_cast<size_t>(a)], dp_group[static_cast<size_t>(a)],
                pp_group[static_cast<size_t>(a)]}) {
    const Group& grp = groups[static_cast<size_t>(g)];
    int la = local_rank(g, a), lb = local_rank(g, b);
    if (la < 0 || lb < 0) continue;
    int n = static_cast<int>(grp.ranks.size());
    if (grp.kind == GroupKind::kPp) {  // p2p between adjacent stages only
      if (std::abs(la - lb) == 1) return true;
    } else if (!grp.ring || (la + 1) % n == lb || (lb + 1) % n == la) {
      return true;
    }
  }
  return false;
}

Topology build_topology(int ranks, int tp, int pp, uint64_t seed) {
  Topology t;
  t.ranks = ranks;
  t.tp = tp;
  t.pp = pp;
  t.dp = ranks / (tp * pp);
  t.tp_group.assign(static_cast<size_t>(ranks), -1);
  t.dp_group.assign(static_cast<size_t>(ranks), -1);
  t.pp_group.assign(static_cast<size_t>(ranks), -1);
  const uint64_t base_us = 1708156014257149ULL + (seed % 100000) * 1000;
  int counter = 0;
  auto add = [&](GroupKind kind, std::vector<int> members, std::vector<int>& index) {
    Group g;
    g.kind = kind;
    g.ranks = std::move(members);
    int first = g.ranks.front();
    bool one_node = Topology::node(first) == Topology::node(g.ranks.back());
    g.ring = kind != GroupKind::kPp && (g.ranks.size() > 8 || !one_node);
    g.id = node_ip(first) + "%enp67s0f5_60000_" + std::to_string(counter) + "_" +
           std::to_string(base_us + static_cast<uint64_t>(counter) * 137);
    g.hash = group_hash_str(g.id);
    g.hash_tail = g.hash.size() > 3 ? g.hash.substr(g.hash.size() - 3) : g.hash;
    for (int r : g.ranks) index[static_cast<size_t>(r)] = static_cast<int>(t.groups.size());
    t.groups.push_back(std::move(g));
    ++counter;
  };
  // Megatron creates DP groups first, then TP, then PP.
  for (int p = 0; p < pp; ++p)
    for (int i = 0; i < tp; ++i) {
      std::vector<int> m;
      for (int d = 0; d < t.dp; ++d) m.push_back(p * tp * t.dp + d * tp + i);
      add(GroupKind::kDp, std::move(m), t.dp_group);
    }
  for (int first = 0; first < ranks; first += tp) {
    std::vector<int> m;
    for (int i = 0; i < tp; ++i) m.push_back(first + i);
    add(GroupKind::kTp, std::move(m), t.tp_group);
  }
  for (int j = 0; j < tp * t.dp; ++j) {
    std::vector<int> m;
    for (int p = 0; p < pp; ++p) m.push_back(p * tp * t.dp + j);
    add(GroupKind::kPp, std::move(m), t.pp_group);
  }
  return t;
}

}  // namespace cs::generator
