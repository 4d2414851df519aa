// apply_host_side: host causes and evidence for the slow-rank findings (host_cause.h).

#include "analysis/host_cause.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "host/host_findings.h"

namespace cs::analysis {

namespace {

std::string ms(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f ms", v);
  return buf;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// "of its Free (3.20 ms per step): dispatch 2.10 ms, data 0.40 ms, unattributed 0.70 ms".
std::string free_text(const host::HostSummary& s) {
  std::array<double, static_cast<size_t>(host::Cause::kCount)> causes{};
  double free = 0, rest = 0;
  int steps = 0;
  for (const auto& f : s.steps) {
    ++steps;
    free += f.free_us / 1000;
    rest += f.unattributed_us / 1000;
    for (size_t c = 0; c < causes.size(); ++c) causes[c] += f.cause_us[c] / 1000;
  }
  if (steps == 0) return {};
  std::string t = "; of its Free (" + ms(free / steps) + " per step):";
  bool first = true;
  for (size_t c = 0; c < causes.size(); ++c) {
    if (causes[c] / steps < 0.005) continue;
    t += std::string(first ? " " : ", ") + host::cause_name(static_cast<host::Cause>(c)) + " " +
         ms(causes[c] / steps);
    first = false;
  }
  return t + (first ? " " : ", ") + "unattributed " + ms(rest / steps);
}

}  // namespace

void apply_host_side(std::vector<SlowRankFinding>& findings,
                     const std::vector<load::RankData>& ranks) {
  std::vector<host::RankSummary> summaries;
  std::map<int, const host::HostSummary*> by_rank;
  std::map<int, host::RankHostMeans> means;
  for (const load::RankData& d : ranks) {
    if (!d.has_host || !d.host.has_timeline) continue;
    summaries.push_back({d.rank(), &d.host});
    by_rank[d.rank()] = &d.host;
    means[d.rank()] = host::rank_means(d.rank(), d.host);
  }
  if (summaries.empty()) return;
  std::vector<double> data;
  for (const auto& [r, m] : means) data.push_back(m.data_host_ms);
  const double data_median = median(data);
  for (SlowRankFinding& f : findings) {
    auto m = means.find(f.rank);
    if (m == means.end()) continue;
    const double excess = m->second.data_host_ms - data_median;
    if (f.cause != "compute" && excess >= 1.0 && excess >= 0.5 * std::max(0.0, f.free_excess_ms)) {
      f.cause = "data";
      f.evidence += "; data loading (DataLoader) takes " + ms(m->second.data_host_ms) +
                    " per step against a median of " + ms(data_median) + " on the other ranks";
    }
    if (f.cause == "host" || f.cause == "data") f.evidence += free_text(*by_rank[f.rank]);
  }
  // A rank whose data loading stands out is slow for it even when its lateness shows at one
  // collective a step only (the first after the DataLoader): its excess over the job's median is
  // at least 1 ms and 2% of its step, and 5 robust sigmas (MAD) of the job's ranks.
  std::vector<double> dev;
  for (double d : data) dev.push_back(std::abs(d - data_median));
  const double mad = 1.4826 * median(dev);
  for (const auto& [rank, m] : means) {
    const double excess = m.data_host_ms - data_median;
    if (excess < 1.0 || excess < 0.02 * m.step_ms || excess < 5 * mad) continue;
    if (std::any_of(findings.begin(), findings.end(),
                    [r = rank](const SlowRankFinding& f) { return f.rank == r; }))
      continue;
    SlowRankFinding f;
    f.rank = rank;
    f.cause = "data";
    f.steps = m.steps;
    f.impact_ms_per_step = excess;
    f.score = std::round(excess * 1000) / 1000;
    f.evidence = "data loading (DataLoader) takes " + ms(m.data_host_ms) +
                 " per step against a median of " + ms(data_median) + " on the job's ranks" +
                 free_text(*by_rank[rank]);
    findings.push_back(std::move(f));
  }
  const host::HostFindings job = host::host_findings(summaries);
  std::vector<double> shares;
  for (const auto& [r, m] : means) shares.push_back(m.dispatch_ms);
  const double dispatch_median = median(shares);
  for (const auto& m : job.host_bound_ranks) {
    if (std::any_of(findings.begin(), findings.end(),
                    [&](const SlowRankFinding& f) { return f.rank == m.rank; }))
      continue;
    SlowRankFinding f;
    f.rank = m.rank;
    f.cause = "host";
    f.steps = m.steps;
    f.impact_ms_per_step = m.dispatch_ms - dispatch_median;
    f.score = std::round(f.impact_ms_per_step * 1000) / 1000;
    char share[32];
    std::snprintf(share, sizeof share, "%.0f%%", m.dispatch_share() * 100);
    f.evidence = "host-bound: its device waits for dispatch " + std::string(share) +
                 " of each step (" + ms(m.dispatch_ms) + " per step against a median of " +
                 ms(dispatch_median) + " on the job's ranks)" + free_text(*by_rank[m.rank]);
    findings.push_back(std::move(f));
  }
}

}  // namespace cs::analysis
