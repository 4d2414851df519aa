// host_candidates: dispatch, data and compile regressions per rank and for the whole job.

#include "compare/host_regressions.h"

#include <array>
#include <iterator>
#include <map>
#include <string>
#include <utility>

#include "load/host_walk.h"

namespace cs::compare {

namespace {

// Mean per step of one part of a rank's Free (-1: free_us itself), µs.
double per_step(const host::HostSummary& s, int cause) {
  double sum = 0;
  for (const auto& f : s.steps)
    sum += cause < 0 ? f.free_us : f.cause_us[static_cast<size_t>(cause)];
  return s.steps.empty() ? 0 : sum / static_cast<double>(s.steps.size());
}

Regression row(const char* what, std::string key, std::string where, const MemberValues& v,
               const Assessment& a, size_t member) {
  Regression r;
  r.what = what;
  r.key = std::move(key);
  r.where = std::move(where);
  r.base_us = v.base[member];
  r.comparison_us = v.comparison[member];
  r.diff_us = a.diff;
  r.impact_us = a.impact;
  r.noise_us = a.noise;
  r.significant = a.significant;
  return r;
}

}  // namespace

void host_candidates(const std::vector<load::RankData>& base,
                     const std::vector<load::RankData>& comparison, const NoiseOptions& opt,
                     std::vector<Regression>& out) {
  static constexpr struct {
    const char* what;
    int cause;
  } parts[] = {{"dispatch", static_cast<int>(host::Cause::kDispatch)},
               {"data", static_cast<int>(host::Cause::kData)},
               {"compile", static_cast<int>(host::Cause::kCompile)},
               {"free", -1}};
  constexpr size_t kParts = std::size(parts);
  // Per rank with a host timeline, each part's mean per step: the summaries are read one at a
  // time (held, packed or spilled alike), none kept.
  using PartMeans = std::array<double, kParts>;
  auto means_of = [&](const std::vector<load::RankData>& run) {
    std::map<int, PartMeans> by_rank;
    load::host_walk(run)([&](int rank, const host::HostSummary& s) {
      if (!s.has_timeline) return;
      PartMeans& m = by_rank[rank];
      for (size_t i = 0; i < kParts; ++i) m[i] = per_step(s, parts[i].cause);
    });
    return by_rank;
  };
  const std::map<int, PartMeans> in_base = means_of(base);
  const std::map<int, PartMeans> in_comparison = means_of(comparison);
  std::map<int, std::pair<PartMeans, PartMeans>> ranks;  // the ranks in both runs
  for (const auto& [rank, m] : in_base)
    if (auto it = in_comparison.find(rank); it != in_comparison.end())
      ranks.emplace(rank, std::make_pair(m, it->second));
  if (ranks.empty()) return;
  for (size_t part = 0; part < kParts; ++part) {
    const auto& p = parts[part];
    MemberValues v;
    std::vector<int> order;
    for (const auto& [rank, s] : ranks) {
      order.push_back(rank);
      v.base.push_back(s.first[part]);
      v.comparison.push_back(s.second[part]);
    }
    const Assessment job = assess_members(v, opt);
    if (job.significant && job.shift)
      out.push_back(row(p.what, "all ranks", "all " + std::to_string(order.size()) + " ranks", v,
                        job, job.extreme));
    if (p.cause < 0 || order.size() < 3) continue;  // Free per rank: an effect (rank_diff.csv)
    const auto each = assess_each(v, opt);
    for (size_t i = 0; i < order.size(); ++i)
      if (each[i].significant && each[i].outlier)
        out.push_back(row(p.what, "rank " + std::to_string(order[i]),
                          "rank " + std::to_string(order[i]), v, each[i], i));
  }
}

}  // namespace cs::compare
