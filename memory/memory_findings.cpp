// Memory findings across the cluster (see cluster_memory.h for the rules).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>

#include "io/text_escape.h"
#include "memory/cluster_memory.h"
#include "stats/outliers.h"

namespace cs::memory {

namespace {

std::string gb(double bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1073741824.0);
  return buf;
}

std::string mb(double bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f MB", bytes / 1048576.0);
  return buf;
}

// The peak a rank holds in every step: its lowest per-step peak (the overall peak without steps).
int64_t steady_peak(const RankMemory& m) {
  if (m.steps.empty()) return m.peak_allocated;
  int64_t v = m.steps.front().peak_allocated;
  for (const auto& s : m.steps) v = std::min(v, s.peak_allocated);
  return v;
}

// Indices of rank `i`'s peers: the ranks of its stage, itself excluded.
std::vector<size_t> peers_of(const std::vector<RankMemoryRef>& ranks, size_t i) {
  std::vector<size_t> out;
  for (size_t j = 0; j < ranks.size(); ++j)
    if (j != i && ranks[j].stage == ranks[i].stage) out.push_back(j);
  return out;
}

std::string peers_text(size_t n, int stage) {
  return "its " + std::to_string(n) + (stage >= 0 ? " stage peers" : " peers");
}

// The operator whose live bytes at the peak exceed the peers' most (the peers' median).
std::string holder_evidence(const std::vector<RankMemoryRef>& ranks, size_t i,
                            const std::vector<size_t>& peers) {
  const RankMemory& m = *ranks[i].memory;
  double best = 0;
  std::string what;
  for (const auto& h : m.holders) {
    std::vector<double> theirs;
    for (size_t j : peers) {
      double v = 0;
      for (const auto& ph : ranks[j].memory->holders)
        if (ph.op == h.op) v = static_cast<double>(ph.bytes);
      theirs.push_back(v);
    }
    const double excess = static_cast<double>(h.bytes) - stats::median(theirs);
    if (excess > best) {
      best = excess;
      what = gb(static_cast<double>(h.bytes)) + " live at the peak in blocks from " + h.op + " (" +
             gb(excess) + " more than its peers' median)";
    }
  }
  return what;
}

}  // namespace

double growth_per_step(const RankMemory& m) {
  const size_t n = m.steps.size();
  if (n < 2) return 0;
  double sx = 0, sy = 0;
  for (size_t k = 0; k < n; ++k) {
    sx += static_cast<double>(k);
    sy += static_cast<double>(m.steps[k].min_allocated);
  }
  const double mx = sx / static_cast<double>(n), my = sy / static_cast<double>(n);
  double num = 0, den = 0;
  for (size_t k = 0; k < n; ++k) {
    const double dx = static_cast<double>(k) - mx;
    num += dx * (static_cast<double>(m.steps[k].min_allocated) - my);
    den += dx * dx;
  }
  return den > 0 ? num / den : 0;
}

std::vector<MemoryFinding> find_memory_issues(const std::vector<RankMemoryRef>& ranks,
                                              const MemoryOptions& opts) {
  std::vector<MemoryFinding> out;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const RankMemoryRef& r = ranks[i];
    const RankMemory& m = *r.memory;
    const std::vector<size_t> peers = peers_of(ranks, i);
    // Leak: the floor grows in (almost) every step, faster than the peers' floors.
    if (m.steps.size() >= 3) {
      const double g = growth_per_step(m);
      size_t rises = 0;
      for (size_t k = 1; k < m.steps.size(); ++k)
        rises += m.steps[k].min_allocated > m.steps[k - 1].min_allocated;
      std::vector<double> theirs;
      for (size_t j : peers) theirs.push_back(growth_per_step(*ranks[j].memory));
      const double base = theirs.empty() ? 0.0 : std::max(0.0, stats::median(theirs));
      const double excess = g - base;
      const bool steady = static_cast<double>(rises) >=
                          opts.leak_rise_share * static_cast<double>(m.steps.size() - 1);
      const double floor_share = 0.002 * static_cast<double>(m.peak_allocated);
      if (steady && excess >= static_cast<double>(opts.leak_min_per_step) &&
          excess >= floor_share) {
        MemoryFinding f{r.rank, r.stage, "leak", excess / 1048576.0, ""};
        f.evidence = "allocated memory grows " + mb(g) + " per step on rank " +
                     std::to_string(r.rank) + " (leak?): its floor rose from " +
                     gb(static_cast<double>(m.steps.front().min_allocated)) + " in step " +
                     std::to_string(m.steps.front().step) + " to " +
                     gb(static_cast<double>(m.steps.back().min_allocated)) + " in step " +
                     std::to_string(m.steps.back().step) + "; " +
                     peers_text(peers.size(), r.stage) + " grow " + mb(base) + " per step";
        out.push_back(std::move(f));
      }
    }
    // Imbalance: the steady peak (its lowest step peak: a leak's growth left out) above the
    // peers' (3 peers at least to judge their spread).
    if (peers.size() >= 3) {
      std::vector<double> theirs;
      for (size_t j : peers) theirs.push_back(static_cast<double>(steady_peak(*ranks[j].memory)));
      const double med = stats::median(theirs);
      const double sigma = std::max({stats::robust_sigma(theirs), 0.01 * med, 16.0 * 1048576.0});
      const double mine = static_cast<double>(steady_peak(m));
      const double excess = mine - med;
      if (excess >= opts.outlier_z * sigma && excess >= opts.min_excess_rel * med &&
          excess >= static_cast<double>(opts.min_excess)) {
        MemoryFinding f{r.rank, r.stage, "imbalance", excess / 1073741824.0, ""};
        char pct[32];
        std::snprintf(pct, sizeof pct, "%+.0f%%", med > 0 ? 100.0 * excess / med : 0.0);
        f.evidence = "rank " + std::to_string(r.rank) + " peaks at " +
                     gb(static_cast<double>(m.peak_allocated)) + ", " + gb(excess) + " (" + pct +
                     ") above " + peers_text(peers.size(), r.stage) + " (median " + gb(med) + ")";
        if (m.peak_step >= 0) f.evidence += ", in step " + std::to_string(m.peak_step);
        if (!m.peak_operator.empty()) f.evidence += " at " + m.peak_operator;
        const std::string h = holder_evidence(ranks, i, peers);
        if (!h.empty()) f.evidence += "; " + h;
        out.push_back(std::move(f));
      }
    }
    // Near capacity: the application's reserved peak (else the pool's) against the device.
    if (m.capacity > 0) {
      const int64_t held = m.peak_app_reserved > 0 ? m.peak_app_reserved : m.peak_reserved;
      const double free_share = 1.0 - static_cast<double>(held) / static_cast<double>(m.capacity);
      if (free_share <= opts.capacity_margin) {
        char pct[32];
        std::snprintf(pct, sizeof pct, "%.0f%%", std::max(0.0, 100.0 * free_share));
        MemoryFinding f{r.rank, r.stage, "near_capacity", free_share, ""};
        f.evidence = "rank " + std::to_string(r.rank) + " is within " + pct + " of its " +
                     gb(static_cast<double>(m.capacity)) + " device memory (reserved peak " +
                     gb(static_cast<double>(held)) + ")";
        out.push_back(std::move(f));
      }
    }
  }
  // Stage against stage: medians of the peaks.
  std::map<int, std::vector<double>> by_stage;
  for (const auto& r : ranks)
    if (r.stage >= 0) by_stage[r.stage].push_back(static_cast<double>(r.memory->peak_allocated));
  if (by_stage.size() >= 2) {
    int hi = -1, lo = -1;
    double vhi = 0, vlo = 0;
    for (const auto& [s, v] : by_stage) {
      const double med = stats::median(v);
      if (hi < 0 || med > vhi) hi = s, vhi = med;
      if (lo < 0 || med < vlo) lo = s, vlo = med;
    }
    const double diff = vhi - vlo;
    if (diff >= opts.stage_min_rel * vlo && diff >= static_cast<double>(opts.stage_min)) {
      MemoryFinding f{-1, hi, "stage_imbalance", diff / 1073741824.0, ""};
      f.evidence = "stage " + std::to_string(hi) + " holds " + gb(diff) + " more than stage " +
                   std::to_string(lo) + " at the peak (median " + gb(vhi) + " vs " + gb(vlo) +
                   "); pipeline schedules keep more micro-batches in flight on early stages";
      out.push_back(std::move(f));
    }
  }
  return out;
}

std::string memory_summary(const std::vector<MemoryFinding>& findings, size_t max_items) {
  if (findings.empty()) return "No memory finding.\n";
  std::string s;
  std::map<std::string, size_t> said;
  for (const auto& f : findings) {
    if (said[f.kind]++ >= max_items) continue;
    std::string e = f.evidence;
    if (!e.empty()) e[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(e[0])));
    s += "Memory: " + io::escape_text(e) + ".\n";
  }
  for (const auto& [kind, n] : said)
    if (n > max_items)
      s += std::to_string(n - max_items) + " more memory finding(s) (" + kind +
           ") in memory_findings.csv.\n";
  return s;
}

}  // namespace cs::memory
