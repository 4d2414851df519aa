// apply_host_side: host causes and evidence for the slow-rank findings (host_cause.h).

#include "analysis/host_cause.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "analysis/by_rank.h"
#include "host/host_findings.h"
#include "load/host_walk.h"

namespace cs::analysis {

namespace {

std::string fixed_ms(double v) {
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

// A rank's Free over its steps, in ms, summed step after step (what free_text says of it).
struct FreeSums {
  std::array<double, static_cast<size_t>(host::Cause::kCount)> causes{};
  double free = 0, rest = 0;
  int steps = 0;
};

FreeSums free_sums(const host::HostSummary& s) {
  FreeSums t;
  for (const auto& f : s.steps) {
    ++t.steps;
    t.free += f.free_us / 1000;
    t.rest += f.unattributed_us / 1000;
    for (size_t c = 0; c < t.causes.size(); ++c) t.causes[c] += f.cause_us[c] / 1000;
  }
  return t;
}

// "of its Free (3.20 ms per step): dispatch 2.10 ms, data 0.40 ms, unattributed 0.70 ms".
std::string free_text(const FreeSums& sums) {
  const auto& causes = sums.causes;
  const double free = sums.free, rest = sums.rest;
  const int steps = sums.steps;
  if (steps == 0) return {};
  std::string t = "; of its Free (" + fixed_ms(free / steps) + " per step):";
  bool first = true;
  for (size_t c = 0; c < causes.size(); ++c) {
    if (causes[c] / steps < 0.005) continue;
    t += std::string(first ? " " : ", ") + host::cause_name(static_cast<host::Cause>(c)) + " " +
         fixed_ms(causes[c] / steps);
    first = false;
  }
  return t + (first ? " " : ", ") + "unattributed " + fixed_ms(rest / steps);
}

}  // namespace

void apply_host_side(std::vector<SlowRankFinding>& findings,
                     const std::vector<load::RankData>& ranks) {
  // The ranks with a host timeline, their summaries read back one at a time (on the root of
  // `cluster` they are parked in the spill file): only their means and Free sums are kept.
  const host::SummaryWalk all = load::host_walk(ranks);
  const host::SummaryWalk summaries = [&all](const host::SummaryVisit& visit) {
    all([&](int rank, const host::HostSummary& s) {
      if (s.has_timeline) visit(rank, s);
    });
  };
  // By rank, sorted (by_rank.h): the ranks with a host timeline.
  ByRank<FreeSums> by_rank;
  ByRank<host::RankHostMeans> means;
  {
    std::vector<ByRank<FreeSums>::Entry> sums;
    std::vector<ByRank<host::RankHostMeans>::Entry> rank_means;
    summaries([&](int rank, const host::HostSummary& s) {
      sums.emplace_back(rank, free_sums(s));
      rank_means.emplace_back(rank, host::rank_means(rank, s));
    });
    by_rank = ByRank<FreeSums>(std::move(sums));
    means = ByRank<host::RankHostMeans>(std::move(rank_means));
  }
  if (means.empty()) return;
  const auto sums_of = [&by_rank](int rank) {
    const FreeSums* t = by_rank.find(rank);
    return t ? *t : FreeSums{};
  };
  std::vector<double> data;
  for (const auto& [r, m] : means) data.push_back(m.data_host_ms);
  const double data_median = median(data);
  for (SlowRankFinding& f : findings) {
    const host::RankHostMeans* m = means.find(f.rank);
    if (!m) continue;
    const double excess = m->data_host_ms - data_median;
    if (f.cause != "compute" && excess >= 1.0 && excess >= 0.5 * std::max(0.0, f.free_excess_ms)) {
      f.cause = "data";
      f.evidence += "; data loading (DataLoader) takes " + fixed_ms(m->data_host_ms) +
                    " per step against a median of " + fixed_ms(data_median) +
                    " on the other ranks";
    }
    if (f.cause == "host" || f.cause == "data") f.evidence += free_text(sums_of(f.rank));
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
    f.evidence = "data loading (DataLoader) takes " + fixed_ms(m.data_host_ms) +
                 " per step against a median of " + fixed_ms(data_median) + " on the job's ranks" +
                 free_text(sums_of(rank));
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
                 " of each step (" + fixed_ms(m.dispatch_ms) + " per step against a median of " +
                 fixed_ms(dispatch_median) + " on the job's ranks)" + free_text(sums_of(m.rank));
    findings.push_back(std::move(f));
  }
}

}  // namespace cs::analysis
