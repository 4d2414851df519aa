#include "msprof_analyze/recipes/calibrate_npu_gpu/module_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>

#include "frame/pandas_math.h"
#include "msprof_analyze/recipes/calibrate_npu_gpu/close_match.h"

namespace cs::recipes::calibrate_npu_gpu {

namespace {

constexpr double kFuzzyCutoff = 0.6;  // what Comparator.compare matches at, whatever is asked

std::string without_ascend(std::string s) {
  for (size_t at = s.find("Ascend"); at != std::string::npos; at = s.find("Ascend", at))
    s.erase(at, 6);
  return s;
}

std::string fixed2(double v, const char* suffix) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f%s", v, suffix);
  return buf;
}

// Indices of `rows` sorted by (key, total time descending), ties in their order.
std::vector<size_t> by_key(const std::vector<std::string>& keys, const std::vector<OpRow>& rows) {
  std::vector<size_t> idx(rows.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    if (keys[a] != keys[b]) return keys[a] < keys[b];
    return rows[a].total_us > rows[b].total_us;
  });
  return idx;
}

// A number or a blank (pandas' NaN filled with ' '); in descending order the blank comes first
// (pandas orders the numbers of a mixed column before its strings).
struct MaybeNumber {
  bool blank = true;
  double v = 0;
};
bool desc_before(const MaybeNumber& a, const MaybeNumber& b) {
  if (a.blank != b.blank) return a.blank;
  return !a.blank && a.v > b.v;
}

frame::Cell maybe_cell(const MaybeNumber& m) {
  return m.blank ? frame::Cell::text(" ") : frame::Cell::real(m.v);
}

}  // namespace

std::vector<OpRow> aggregate_gpu(const std::vector<GpuKernelStat>& rows) {
  std::vector<size_t> idx(rows.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    const auto& x = rows[a];
    const auto& y = rows[b];
    if (std::tie(x.parent, x.module, x.op) != std::tie(y.parent, y.module, y.op))
      return std::tie(x.parent, x.module, x.op) < std::tie(y.parent, y.module, y.op);
    return x.total_ns > y.total_ns;
  });
  std::vector<OpRow> out;
  for (size_t a = 0; a < idx.size();) {
    const GpuKernelStat& first = rows[idx[a]];
    OpRow r{first.parent, first.module, first.op, "", 0, 0, 0};
    int64_t total = 0;
    std::vector<double> means;
    size_t b = a;
    for (; b < idx.size(); ++b) {
      const GpuKernelStat& s = rows[idx[b]];
      if (std::tie(s.parent, s.module, s.op) != std::tie(r.parent, r.module, r.op)) break;
      r.kernels += (b == a ? "" : ", ") + s.kernel;
      total += s.total_ns;
      r.count += s.count;
      means.push_back(static_cast<double>(s.total_ns) / static_cast<double>(s.count));
    }
    r.total_us = static_cast<double>(total) / 1000.0;
    r.avg_us = frame::group_mean(means) / 1000.0;
    out.push_back(std::move(r));
    a = b;
  }
  return out;
}

std::vector<OpRow> aggregate_npu(const std::vector<NpuStat>& rows) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const NpuStat*>> groups;
  for (const NpuStat& s : rows) groups[{s.parent, s.module, s.op}].push_back(&s);
  std::vector<OpRow> out;
  for (const auto& [key, members] : groups) {
    OpRow r{std::get<0>(key), std::get<1>(key), std::get<2>(key), "", 0, 0, 0};
    std::vector<double> totals, means;
    for (size_t i = 0; i < members.size(); ++i) {
      r.kernels += (i ? ", " : "") + members[i]->kernels;
      totals.push_back(members[i]->total_ns);
      means.push_back(members[i]->avg_ns);
      r.count += members[i]->count;
    }
    r.total_us = frame::kahan_sum(totals) / 1000.0;
    r.avg_us = frame::group_mean(means) / 1000.0;
    out.push_back(std::move(r));
  }
  return out;
}

frame::Frame profile_frame(const std::vector<OpRow>& rows) {
  frame::Frame f;
  auto& parent = f.add("Parent Module");
  auto& module = f.add("Module");
  auto& op = f.add("Op Name");
  auto& count = f.add("Op Count");
  auto& kernels = f.add("Kernel List");
  auto& total = f.add("Total Kernel Duration(us)");
  auto& avg = f.add("Avg Kernel Duration(us)");
  for (const OpRow& r : rows) {
    parent.push_back(frame::Cell::text(r.parent));
    module.push_back(frame::Cell::text(r.module));
    op.push_back(frame::Cell::text(r.op));
    count.push_back(frame::Cell::integer(r.count));
    kernels.push_back(frame::Cell::text(r.kernels));
    total.push_back(frame::Cell::real(r.total_us));
    avg.push_back(frame::Cell::real(r.avg_us));
  }
  return f;
}

frame::Frame compare_frame(const std::vector<OpRow>& gpu, const std::vector<OpRow>& npu,
                           bool fuzzy) {
  std::vector<std::string> gkey, nkey;
  for (const OpRow& r : gpu) gkey.push_back(r.parent + "/" + r.module);
  for (const OpRow& r : npu) nkey.push_back(without_ascend(r.parent + "/" + r.module));
  std::vector<bool> nfuzzy(npu.size(), false);
  if (fuzzy) {
    const std::set<std::string> gset(gkey.begin(), gkey.end());
    const std::vector<std::string> candidates(gset.begin(), gset.end());
    std::map<std::string, std::optional<std::string>> matched;  // NPU path -> GPU path
    for (const std::string& k : nkey)
      if (!gset.count(k) && !matched.count(k))
        matched[k] = best_close_match(k, candidates, kFuzzyCutoff);
    for (size_t i = 0; i < npu.size(); ++i) {
      auto it = matched.find(nkey[i]);
      if (it == matched.end() || !it->second) continue;
      nfuzzy[i] = true;
      nkey[i] = *it->second;
    }
  }
  // Each side by path and time; the i-th op of a path on one side paired with the i-th on the
  // other; the GPU's rows first (with their NPU partner), then the NPU's alone, as pandas'
  // outer merge orders them.
  const std::vector<size_t> gorder = by_key(gkey, gpu), norder = by_key(nkey, npu);
  std::map<std::pair<std::string, size_t>, size_t> npos;  // (path, rank in path) -> NPU row
  std::map<std::string, size_t> seen;
  for (size_t i : norder) npos[{nkey[i], seen[nkey[i]]++}] = i;
  struct Merged {
    std::string key;
    const OpRow *g = nullptr, *n = nullptr;
    bool fuzzy = false;
  };
  std::vector<Merged> rows;
  std::set<size_t> paired;
  seen.clear();
  for (size_t i : gorder) {
    Merged m{gkey[i], &gpu[i], nullptr, false};
    auto it = npos.find({gkey[i], seen[gkey[i]]++});
    if (it != npos.end()) {
      m.n = &npu[it->second];
      m.fuzzy = nfuzzy[it->second];
      paired.insert(it->second);
    }
    rows.push_back(std::move(m));
  }
  for (size_t i : norder)
    if (!paired.count(i)) rows.push_back({nkey[i], nullptr, &npu[i], nfuzzy[i]});

  // Shares of each side's total, and per path the NPU / GPU time ratio and difference.
  std::vector<double> gcol, ncol;
  for (const Merged& m : rows) {
    gcol.push_back(m.g ? m.g->total_us : 0.0);
    ncol.push_back(m.n ? m.n->total_us : 0.0);
  }
  const double gsum = frame::numpy_sum(gcol), nsum = frame::numpy_sum(ncol);
  std::map<std::string, std::vector<double>> gpath, npath;
  for (size_t i : gorder) gpath[gkey[i]].push_back(gpu[i].total_us);
  for (size_t i : norder) npath[nkey[i]].push_back(npu[i].total_us);
  auto path_sum = [](const std::map<std::string, std::vector<double>>& m,
                     const std::string& k) -> std::optional<double> {
    auto it = m.find(k);
    if (it == m.end()) return std::nullopt;
    return frame::kahan_sum(it->second);
  };

  struct Out {
    std::string gparent, gmodule, nparent, nmodule;
    MaybeNumber diff, gtotal;
    const Merged* m;
    std::string ratio;
  };
  std::vector<Out> out;
  for (const Merged& m : rows) {
    const size_t slash = m.key.rfind('/');
    const std::string kparent = m.key.substr(0, slash), kmodule = m.key.substr(slash + 1);
    Out o{m.g ? m.g->parent : kparent,
          m.g ? m.g->module : kmodule,
          m.n ? m.n->parent : kparent,
          m.n ? m.n->module : kmodule,
          {},
          {},
          &m,
          " "};
    const auto gp = path_sum(gpath, m.key), np = path_sum(npath, m.key);
    if (gp && np) {
      o.diff = {false, *np - *gp};
      if (*gp != 0) o.ratio = fixed2(*np / *gp, "");
    }
    if (m.g) o.gtotal = {false, m.g->total_us};
    out.push_back(std::move(o));
  }
  std::stable_sort(out.begin(), out.end(), [](const Out& a, const Out& b) {
    if (a.gparent != b.gparent) return a.gparent < b.gparent;
    if (desc_before(a.diff, b.diff)) return true;
    if (desc_before(b.diff, a.diff)) return false;
    return desc_before(a.gtotal, b.gtotal);
  });

  // A side missing from some row makes its number columns pandas objects (floats and ' ').
  bool g_missing = false, n_missing = false;
  for (const Merged& m : rows) g_missing |= !m.g, n_missing |= !m.n;
  frame::Frame f;
  for (const char* c :
       {"(GPU) Parent Module", "(GPU) Module", "(NPU) Parent Module", "(NPU) Module", "Match Type",
        "(NPU) Op Name", "(NPU) Op Count", "(NPU) Kernel List", "(NPU) Total Kernel Duration(us)",
        "(NPU) Total Kernel Duration(%)", "(NPU) Avg Kernel Duration(us)", "(GPU) Op Name",
        "(GPU) Op Count", "(GPU) Kernel List", "(GPU) Total Kernel Duration(us)",
        "(GPU) Total Kernel Duration(%)", "(GPU) Avg Kernel Duration(us)",
        "(NPU/GPU) Module Time Ratio", "(NPU-GPU,us) Module Time Diff"})
    f.add(c);
  auto text = [](const std::string& s) { return frame::Cell::text(s); };
  auto side = [&](size_t col, const OpRow* r, bool missing_any, double sum) {
    const frame::Cell blank = frame::Cell::text(" ");
    f.columns[col].push_back(r ? text(r->op) : blank);
    f.columns[col + 1].push_back(!r            ? blank
                                 : missing_any ? frame::Cell::real(static_cast<double>(r->count))
                                               : frame::Cell::integer(r->count));
    f.columns[col + 2].push_back(r ? text(r->kernels) : blank);
    f.columns[col + 3].push_back(r ? frame::Cell::real(r->total_us) : blank);
    f.columns[col + 4].push_back(r && sum != 0 ? text(fixed2(r->total_us / sum * 100, "%"))
                                               : blank);
    f.columns[col + 5].push_back(r ? frame::Cell::real(r->avg_us) : blank);
  };
  for (const Out& o : out) {
    f.columns[0].push_back(text(o.gparent));
    f.columns[1].push_back(text(o.gmodule));
    f.columns[2].push_back(text(o.nparent));
    f.columns[3].push_back(text(o.nmodule));
    f.columns[4].push_back(text(!o.m->n ? " " : o.m->fuzzy ? "fuzzy" : "rule"));
    side(5, o.m->n, n_missing, nsum);
    side(11, o.m->g, g_missing, gsum);
    f.columns[17].push_back(text(o.ratio));
    f.columns[18].push_back(maybe_cell(o.diff));
  }
  return f;
}

}  // namespace cs::recipes::calibrate_npu_gpu
