#include "msprof_analyze/recipes/module_statistic/module_tree.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace cs::recipes::module_statistic {

namespace {

constexpr int kMaxDepth = 20;  // deeper modules are left out, as msprof-analyze does

// The event tree: modules nest modules and ops by time; ops are leaves here (their kernels are
// kept beside them).
struct Tree {
  struct Node {
    int64_t start = 0, end = 0;
    bool module = true;
    size_t item = 0;  // index into the modules or the ops
    std::vector<size_t> children;
  };
  std::vector<Node> nodes;  // nodes[0] is the root, a nameless forward module

  // Sorted by start, longest first (stable: modules before ops at a tie), each event goes under
  // the innermost open module containing it.
  void build(int64_t lo, int64_t hi) {
    std::vector<size_t> order(nodes.size() - 1);
    for (size_t i = 0; i < order.size(); ++i) order[i] = i + 1;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return nodes[a].start != nodes[b].start ? nodes[a].start < nodes[b].start
                                              : nodes[a].end > nodes[b].end;
    });
    nodes[0].start = lo;
    nodes[0].end = hi;
    std::vector<size_t> stack{0};
    for (size_t e : order) {
      while (stack.size() > 1 &&
             (nodes[stack.back()].start > nodes[e].start || nodes[stack.back()].end < nodes[e].end))
        stack.pop_back();
      nodes[stack.back()].children.push_back(e);
      if (nodes[e].module) stack.push_back(e);
    }
  }

  // Calls `visit(module, op, ancestors)` for each op under a module, depth first.
  using Visit = std::function<void(size_t, size_t, const std::vector<size_t>&)>;
  void walk(size_t n, std::vector<size_t>& path, int depth, const Visit& visit) const {
    if (depth > kMaxDepth) return;
    for (size_t c : nodes[n].children) {
      if (nodes[c].module) {
        path.push_back(n);
        walk(c, path, depth + 1, visit);
        path.pop_back();
      } else {
        visit(n, c, path);
      }
    }
  }
};

// The names of `path` joined by "/", without leading or trailing "/".
std::string parent_path(const std::vector<size_t>& path, const std::vector<ModuleRange>& mods) {
  std::string s;
  for (size_t i = 0; i < path.size(); ++i) {
    if (i) s += '/';
    if (path[i] != 0) s += mods[path[i] - 1].name;
  }
  const size_t b = s.find_first_not_of('/');
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of('/') - b + 1);
}

Tree module_tree(const std::vector<ModuleRange>& modules) {
  Tree t;
  t.nodes.push_back({});
  for (size_t i = 0; i < modules.size(); ++i)
    t.nodes.push_back({modules[i].start, modules[i].end, true, i, {}});
  return t;
}

}  // namespace

std::vector<ModuleRange> backward_modules(const std::vector<ModuleRange>& modules,
                                          const std::vector<FwdBwdLink>& links) {
  if (modules.empty() || links.empty()) return {};
  Tree t = module_tree(modules);
  int64_t lo = modules[0].start, hi = modules[0].end;
  for (const auto& m : modules) lo = std::min(lo, m.start), hi = std::max(hi, m.end);
  for (size_t i = 0; i < links.size(); ++i) {
    t.nodes.push_back({links[i].fwd_ts, links[i].fwd_end, false, i, {}});
    lo = std::min(lo, links[i].fwd_ts), hi = std::max(hi, links[i].fwd_end);
  }
  t.build(lo, hi);
  // Each forward op's module, then sorted by the module's start and the op's start.
  struct Owned {
    std::string parent, module;
    int64_t mstart, mend;
    size_t link;
  };
  std::vector<Owned> owned;
  std::vector<size_t> path;
  t.walk(0, path, 0, [&](size_t m, size_t op, const std::vector<size_t>& anc) {
    const std::string name = m == 0 ? "" : modules[t.nodes[m].item].name;
    std::string parent = parent_path(anc, modules);
    if (name.empty() && parent.empty()) return;
    owned.push_back({std::move(parent), name, t.nodes[m].start, t.nodes[m].end, t.nodes[op].item});
  });
  std::stable_sort(owned.begin(), owned.end(), [&](const Owned& a, const Owned& b) {
    return a.mstart != b.mstart ? a.mstart < b.mstart : links[a.link].fwd_ts < links[b.link].fwd_ts;
  });
  // Joined to every link of the same forward op (name and span), in backward start order.
  std::multimap<std::tuple<std::string, int64_t, int64_t>, size_t> by_fwd;
  for (size_t i = 0; i < links.size(); ++i)
    by_fwd.emplace(std::make_tuple(links[i].fwd_name, links[i].fwd_ts, links[i].fwd_end), i);
  std::vector<std::pair<const Owned*, const FwdBwdLink*>> joined;
  for (const Owned& o : owned) {
    const FwdBwdLink& l = links[o.link];
    auto [b, e] = by_fwd.equal_range({l.fwd_name, l.fwd_ts, l.fwd_end});
    for (auto it = b; it != e; ++it) joined.push_back({&o, &links[it->second]});
  }
  if (joined.empty()) return {};
  std::stable_sort(joined.begin(), joined.end(), [](const auto& a, const auto& b) {
    return a.second->bwd_ts < b.second->bwd_ts;
  });
  // Runs of the same forward module make one backward module each.
  std::vector<ModuleRange> parents, own;
  for (size_t i = 0; i < joined.size();) {
    const Owned& o = *joined[i].first;
    int64_t s = joined[i].second->bwd_ts, e = joined[i].second->bwd_end;
    size_t j = i + 1;
    for (; j < joined.size(); ++j) {
      const Owned& p = *joined[j].first;
      if (p.parent != o.parent || p.module != o.module || p.mstart != o.mstart || p.mend != o.mend)
        break;
      s = std::min(s, joined[j].second->bwd_ts);
      e = std::max(e, joined[j].second->bwd_end);
    }
    if (!o.parent.empty()) parents.push_back({s - 1, e + 1, o.parent, true});
    own.push_back({s, e, o.module, true});
    i = j;
  }
  parents.insert(parents.end(), own.begin(), own.end());
  return parents;
}

std::vector<ModuleStat> module_statistic(const std::vector<ModuleRange>& modules,
                                         const std::vector<KernelRow>& kernels, bool occurrences) {
  if (modules.empty() || kernels.empty()) return {};
  // Ops: the kernel rows grouped by (op, op_ts, op_end) in first-seen order.
  struct Op {
    const KernelRow* row;
    std::vector<const KernelRow*> kernels;
  };
  std::vector<Op> ops;
  std::map<std::tuple<std::string, int64_t, int64_t>, size_t> op_index;
  int64_t lo = modules[0].start, hi = modules[0].end;
  for (const auto& m : modules) lo = std::min(lo, m.start), hi = std::max(hi, m.end);
  for (const KernelRow& k : kernels) {
    lo = std::min({lo, k.kernel_ts, k.op_ts}), hi = std::max({hi, k.kernel_end, k.op_end});
    auto [it, added] = op_index.emplace(std::make_tuple(k.op, k.op_ts, k.op_end), ops.size());
    if (added) ops.push_back({&k, {}});
    ops[it->second].kernels.push_back(&k);
  }
  Tree t = module_tree(modules);
  for (size_t i = 0; i < ops.size(); ++i)
    t.nodes.push_back({ops[i].row->op_ts, ops[i].row->op_end, false, i, {}});
  t.build(lo, hi);

  struct Row {
    std::string parent, module;
    int64_t mstart, mend, op_start;
    const Op* op;
    std::string kernels;
    double device = 0;
    int64_t order = 0, seq = 0;
  };
  std::vector<Row> rows;
  std::vector<size_t> path;
  t.walk(0, path, 0, [&](size_t m, size_t op, const std::vector<size_t>& anc) {
    const ModuleRange* mod = m == 0 ? nullptr : &modules[t.nodes[m].item];
    std::string parent = parent_path(anc, modules);
    if (!mod && parent.empty()) return;
    bool backward = mod && mod->backward;
    for (size_t a : anc) backward = backward || (a != 0 && modules[t.nodes[a].item].backward);
    const std::string name = mod ? mod->name : "";
    Row r{std::move(parent),
          backward ? "[Backward]" + name : name,
          t.nodes[m].start,
          t.nodes[m].end,
          t.nodes[op].start,
          &ops[t.nodes[op].item],
          "",
          0.0,
          0,
          0};
    for (const KernelRow* k : r.op->kernels) {
      if (!r.kernels.empty()) r.kernels += ", ";
      r.kernels += k->kernel;
      r.device += static_cast<double>(k->kernel_end - k->kernel_ts);
    }
    rows.push_back(std::move(r));
  });
  if (rows.empty()) return {};
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.mstart != b.mstart ? a.mstart < b.mstart : a.op_start < b.op_start;
  });
  // Each op's position in its module instance, and the instance's op sequence numbered in order
  // of first appearance.
  using Instance = std::tuple<std::string, std::string, int64_t, int64_t>;
  std::map<Instance, std::vector<size_t>> instances;
  for (size_t i = 0; i < rows.size(); ++i) {
    auto& v = instances[{rows[i].parent, rows[i].module, rows[i].mstart, rows[i].mend}];
    rows[i].order = static_cast<int64_t>(v.size());
    v.push_back(i);
  }
  std::vector<std::string> seq_of(rows.size());
  for (const auto& [key, members] : instances) {
    std::string seq;
    for (size_t i : members) seq += (i == members.front() ? "" : "/") + rows[i].op->row->op;
    for (size_t i : members) seq_of[i] = seq;
  }
  std::map<std::string, int64_t> seq_ids;
  for (size_t i = 0; i < rows.size(); ++i)
    rows[i].seq = seq_ids.emplace(seq_of[i], static_cast<int64_t>(seq_ids.size())).first->second;

  // Aggregated per (parent, module, op, position, kernels, sequence), in key order.
  struct Stat {
    std::string parent, module, op, kernels;
    int64_t order, seq;
    double total = 0;
    int64_t count = 0, op_start = 0;
    std::vector<const Op*> calls;
  };
  std::map<std::tuple<std::string, std::string, std::string, int64_t, std::string, int64_t>, Stat>
      groups;
  for (const Row& r : rows) {
    auto [it, added] = groups.try_emplace(
        {r.parent, r.module, r.op->row->op, r.order, r.kernels, r.seq},
        Stat{r.parent, r.module, r.op->row->op, r.kernels, r.order, r.seq, 0.0, 0, r.op_start, {}});
    if (occurrences) it->second.calls.push_back(r.op);
    it->second.total += r.device;
    ++it->second.count;
    it->second.op_start = std::min(it->second.op_start, r.op_start);
  }
  std::vector<Stat> stats;
  for (auto& [key, s] : groups) stats.push_back(std::move(s));
  std::stable_sort(stats.begin(), stats.end(),
                   [](const Stat& a, const Stat& b) { return a.op_start < b.op_start; });
  // Same parent and name in consecutive rows but different op sequences: numbered "_0", "_1"...
  // by sequence id.
  std::map<std::pair<std::string, std::string>, std::vector<size_t>> by_module;
  for (size_t i = 0; i < stats.size(); ++i)
    by_module[{stats[i].parent, stats[i].module}].push_back(i);
  std::vector<Stat> renamed;
  for (const auto& [key, idx] : by_module) {
    for (size_t a = 0; a < idx.size();) {
      size_t b = a + 1;
      while (b < idx.size() && idx[b] == idx[b - 1] + 1) ++b;
      std::set<int64_t> seqs;
      for (size_t k = a; k < b; ++k) seqs.insert(stats[idx[k]].seq);
      for (size_t k = a; k < b; ++k) {
        Stat s = stats[idx[k]];
        if (seqs.size() > 1)
          s.module += "_" + std::to_string(std::distance(seqs.begin(), seqs.find(s.seq)));
        renamed.push_back(std::move(s));
      }
      a = b;
    }
  }
  std::stable_sort(renamed.begin(), renamed.end(), [](const Stat& a, const Stat& b) {
    return a.op_start != b.op_start ? a.op_start < b.op_start : a.order < b.order;
  });
  std::vector<ModuleStat> out;
  out.reserve(renamed.size());
  for (Stat& s : renamed) {
    out.push_back({std::move(s.parent),
                   std::move(s.module),
                   std::move(s.op),
                   std::move(s.kernels),
                   s.total,
                   s.total / static_cast<double>(s.count),
                   s.count,
                   {}});
    for (const Op* call : s.calls) {
      auto& idx = out.back().occurrences.emplace_back();
      for (const KernelRow* k : call->kernels)
        idx.push_back(static_cast<size_t>(k - kernels.data()));
    }
  }
  return out;
}

}  // namespace cs::recipes::module_statistic
