#include "report/cluster_page/group_names.h"

#include <algorithm>
#include <set>

namespace cs::report {

namespace {

// The common difference of `r` (sorted, unique, 2+ ranks), 0 when not evenly spaced.
long long stride_of(const std::vector<long long>& r) {
  const long long s = r[1] - r[0];
  for (size_t i = 2; i < r.size(); ++i)
    if (r[i] - r[i - 1] != s) return 0;
  return s;
}

struct Info {
  std::vector<long long> ranks;
  long long stride = 0;
};

}  // namespace

const std::string& GroupNaming::name(const std::string& hash) const {
  const auto it = label.find(hash);
  return it == label.end() ? hash : it->second;
}

long long GroupNaming::index(const std::string& hash) const {
  const auto it = std::lower_bound(order.begin(), order.end(), hash);
  return it != order.end() && *it == hash ? it - order.begin() : -1;
}

std::string rank_range(const std::vector<long long>& r) {
  if (r.empty()) return "";
  if (r.size() == 1) return std::to_string(r[0]);
  const long long s = r.size() > 1 ? stride_of(r) : 0;
  if (s == 1) return std::to_string(r.front()) + "-" + std::to_string(r.back());
  std::string out;
  if (s > 1 && r.size() > 4) {
    for (size_t i = 0; i < 3; ++i) out += std::to_string(r[i]) + ",";
    return out + "\u2026," + std::to_string(r.back());
  }
  for (size_t i = 0; i < r.size() && i < 6; ++i) out += (i ? "," : "") + std::to_string(r[i]);
  if (r.size() > 6) out += ",\u2026";
  return out;
}

GroupNaming name_groups(const std::map<std::string, std::vector<long long>>& groups) {
  GroupNaming n;
  std::map<std::string, Info> info;
  long long world = 0;
  for (const auto& [hash, ranks] : groups) {
    std::set<long long> u(ranks.begin(), ranks.end());
    u.erase(-1);
    if (u.empty()) continue;
    Info in;
    in.ranks.assign(u.begin(), u.end());
    in.stride = in.ranks.size() > 1 ? stride_of(in.ranks) : 0;
    world = std::max(world, in.ranks.back() + 1);
    for (long long r : in.ranks) n.of_rank[r].push_back(hash);
    info.emplace(hash, std::move(in));
  }
  // Pipeline groups: evenly spaced, a stage apart, spanning the job (stride * size == world).
  long long pp = 1;
  for (const auto& [hash, in] : info)
    if (in.stride > 1 && in.stride * static_cast<long long>(in.ranks.size()) == world &&
        in.ranks.front() < in.stride)
      pp = std::max(pp, static_cast<long long>(in.ranks.size()));
  // Two kinds of groups alone (blocks of k ranks and groups of stride k) read as tp x dp: tp x pp
  // and dp x pp give the same rank sets. Pipeline stages need a third kind inside a stage (the dp
  // groups of stride tp).
  if (pp > 1 && world % pp == 0) {
    const long long st = world / pp;
    bool inner = false;
    for (const auto& [hash, in] : info)
      inner |=
          in.stride > 1 && in.ranks.size() >= 2 && in.ranks.front() / st == in.ranks.back() / st;
    if (!inner) pp = 1;
  }
  n.stage_size = world % pp == 0 ? world / pp : world;
  const long long stage = n.stage_size;
  // Tensor-parallel groups: consecutive ranks, smaller than a stage or with evenly spaced groups
  // inside the stage whose stride is their size (dp groups of stride tp).
  std::set<long long> inner_strides;
  for (const auto& [hash, in] : info)
    if (in.stride > 1 && in.ranks.back() - in.ranks.front() < stage)
      inner_strides.insert(in.stride);
  for (const auto& [hash, in] : info) {
    const auto& r = in.ranks;
    const long long size = static_cast<long long>(r.size());
    const std::string range = " (ranks " + rank_range(r) + ")";
    const long long st = r.front() / stage;
    const bool one_stage = r.back() / stage == st;
    std::string label;
    if (size == 1) {
      label = "rank " + std::to_string(r[0]) + " alone";
    } else if (in.stride == 1 && one_stage && (size < stage || inner_strides.count(size)) &&
               r.front() % size == 0) {
      const long long idx = r.front() / size;
      label = "tp " + std::to_string(idx) + range;
      for (size_t i = 0; i < r.size(); ++i) n.coords[r[i]].tp = static_cast<long long>(i);
    } else if (pp > 1 && in.stride == stage && size == pp) {
      label = "pp " + std::to_string(r.front()) + range;
      for (long long x : r) n.coords[x].stage = x / stage;
    } else if (pp > 1 && size == 2 && in.stride % stage == 0) {
      label =
          "pp send/recv stage " + std::to_string(st) + "-" + std::to_string(r[1] / stage) + range;
    } else if (in.stride >= 1 && one_stage) {
      const long long idx = r.front() % stage % std::max<long long>(in.stride, 1);
      label =
          "dp " + std::to_string(idx) + (pp > 1 ? " of stage " + std::to_string(st) : "") + range;
      for (size_t i = 0; i < r.size(); ++i) n.coords[r[i]].dp = static_cast<long long>(i);
    } else {
      label = "group of " + std::to_string(size) + " ranks" + range;
    }
    n.label.emplace(hash, label);
  }
  for (const auto& [hash, label] : n.label) n.order.push_back(hash);
  for (auto& [rank, c] : n.coords)
    if (c.stage < 0 && pp > 1) c.stage = rank / stage;
  return n;
}

}  // namespace cs::report
