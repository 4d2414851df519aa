#include "analysis/slow_rank.h"

#include "analysis/host_cause.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "analysis/by_rank.h"
#include "analysis/collective_lateness.h"
#include "analysis/format_value.h"
#include "analysis/operators_topn.h"
#include "analysis/step_deviation.h"
#include "stats/outliers.h"

namespace cs::analysis {

namespace {

std::string ms(double v) {
  return fmt(std::abs(v) < 10 ? "%.2f ms" : "%.1f ms", v);
}

std::string sigmas(double z) {
  return z > 999 ? std::string(">999σ") : fmt("%.0fσ", z);
}

// Net impact per step of every rank with collective data: the peers' wait for it minus what it
// waited itself beyond its stage peers (a rank held up elsewhere is late for a reason).
ByRank<double> net_impact(const LatenessByRank& late, const stats::RankStages& stages) {
  std::map<int, std::vector<double>> waits_by_stage;
  const auto stage = [&](int r) {
    const auto it = stages.find(r);
    return it == stages.end() ? -1 : it->second;
  };
  const auto per_step = [](double v, int steps) { return v / std::max(1, steps); };
  for (const auto& [r, l] : late)
    waits_by_stage[stage(r)].push_back(per_step(l.own_wait_ms, l.steps));
  std::map<int, double> stage_wait;
  for (auto& [s, v] : waits_by_stage) stage_wait[s] = stats::median(v);
  std::vector<ByRank<double>::Entry> out;
  out.reserve(late.size());
  for (const auto& [r, l] : late) {
    const double excess = per_step(l.own_wait_ms, l.steps) - stage_wait[stage(r)];
    out.emplace_back(r, per_step(l.imposed_ms, l.steps) - std::max(0.0, excess));
  }
  return ByRank<double>(std::move(out));
}

std::string cause_text(const SlowRankFinding& f) {
  const auto dev = [&](const char* what, double excess, double z, double rel) {
    std::string s = std::string(what) + " ";
    if (rel != 0) s += fmt("%+.1f%%", rel * 100) + " (";
    s += (excess >= 0 ? "+" : "") + ms(excess) + " per step";
    if (rel != 0) s += ")";
    return s + " against its " + std::to_string(f.peers) + " stage peers, " + sigmas(z) +
           " of their spread in " +
           (f.steps > 1 ? "every one of " + std::to_string(f.steps) + " steps"
                        : std::string("the one step captured"));
  };
  if (f.cause == "compute")
    return dev("Computing", f.computing_excess_ms, f.computing_z, f.computing_rel);
  if (f.cause == "host")
    return dev("Free (device idle, host-bound)", f.free_excess_ms, f.free_z, 0);
  if (f.cause == "communication")
    return "its transfers take " + fmt("%+.0f%%", f.transit_rel * 100) +
           " longer than its peers' in the same collectives";
  return "its Computing and Free times are within the noise of its stage peers";
}

}  // namespace

SlowRankAnalysis analyze_slow_ranks(const std::vector<load::RankData>& ranks,
                                    const stats::RankStages& stages,
                                    const std::vector<SlowLinkFinding>& slow_links,
                                    const SlowRankOptions& opts) {
  SlowRankAnalysis out;
  auto late = collective_lateness(ranks, stages, opts.lateness);
  auto dev = step_deviations(ranks, stages);
  std::set<int> link_ends;
  for (const auto& l : slow_links) link_ends.insert(l.src_rank), link_ends.insert(l.dst_rank);

  // The net impact against the noise of the rank's stage peers (a cascade in another stage, as
  // behind a slow link, does not raise the bar); with fewer than 4 peers the z cannot be judged.
  auto net = net_impact(late, stages);
  std::map<int, std::pair<std::vector<int>, std::vector<double>>> by_stage;
  for (const auto& [r, v] : net) {
    const auto it = stages.find(r);
    auto& b = by_stage[it == stages.end() ? -1 : it->second];
    b.first.push_back(r);
    b.second.push_back(v);
  }
  std::vector<ByRank<double>::Entry> zs;
  zs.reserve(net.size());
  for (const auto& [stage, b] : by_stage) {
    const auto z = stats::robust_z(b.second);
    for (size_t i = 0; i < b.first.size(); ++i)
      zs.emplace_back(b.first[i],
                      b.first.size() >= 4 ? z[i] : std::numeric_limits<double>::infinity());
  }
  ByRank<double> net_z(std::move(zs));
  by_stage.clear();

  // Every rank with collective data or a step trace judged, in rank order (both are sorted).
  std::vector<int> all;
  all.reserve(std::max(late.size(), dev.ranks.size()));
  {
    auto a = late.begin();
    auto b = dev.ranks.begin();
    while (a != late.end() || b != dev.ranks.end()) {
      if (b == dev.ranks.end() || (a != late.end() && a->first < b->first)) {
        all.push_back((a++)->first);
      } else if (a == late.end() || b->first < a->first) {
        all.push_back((b++)->first);
      } else {
        all.push_back(a->first);
        ++a, ++b;
      }
    }
  }
  for (int rank : all) {
    SlowRankFinding f;
    f.rank = rank;
    const RankLateness* li = late.find(rank);
    const RankStepDeviation* di = dev.ranks.find(rank);
    const RankStepDeviation d = di ? *di : RankStepDeviation{};
    f.peers = d.peers;
    f.steps = d.computing.steps;
    f.computing_rel = d.computing.rel;
    f.computing_excess_ms = d.computing.excess_ms;
    f.computing_z = d.computing.z_min;
    f.free_excess_ms = d.free.excess_ms;
    f.free_z = d.free.z_min;
    const bool has_comm = li && li->instances > 0;
    bool flagged = false;
    if (has_comm) {
      const RankLateness& l = *li;
      f.last = l.last;
      f.trials = l.trials;
      f.expected_last = l.expected;
      f.transit_rel = l.transit_rel;
      const double impact = net.at(rank);
      f.impact_ms_per_step = l.imposed_ms / std::max(1, l.steps);
      if (f.steps == 0) f.steps = l.steps;
      const bool enough_share = d.step_ms > 0 ? impact >= opts.min_impact_share * d.step_ms : true;
      flagged = l.trials > 0 && l.last_z() >= opts.min_last_z &&
                l.last >= opts.min_last_share * l.trials && impact > 0 &&
                static_cast<int>(l.late_steps.size()) >= l.steps && enough_share;
      // Without step-trace judgement the impact itself must stand above its peers' noise.
      if (!(d.computing.steps > 0 && d.peers >= 3))
        flagged = flagged && net_z.at(rank) >= opts.net_z;
      f.collective_evidence = flagged;
    } else if (d.computing.steps > 0 || d.free.steps > 0) {
      const double zmin =
          std::max(d.computing.steps, d.free.steps) > 1 ? opts.alone_z : opts.alone_z_one_step;
      flagged = (d.computing.z_min >= zmin && d.computing.excess_ms > 0) ||
                (d.free.z_min >= zmin && d.free.excess_ms > 0);
      f.impact_ms_per_step = std::max(d.computing.z_min >= zmin ? d.computing.excess_ms : 0.0,
                                      d.free.z_min >= zmin ? d.free.excess_ms : 0.0);
    }
    if (!flagged) continue;

    const bool compute =
        d.computing.steps > 0 && d.computing.z_min >= opts.step_z && d.computing.excess_ms > 0;
    const bool host = d.free.steps > 0 && d.free.z_min >= opts.step_z && d.free.excess_ms > 0;
    if (compute && (!host || d.computing.excess_ms >= d.free.excess_ms))
      f.cause = "compute";
    else if (host)
      f.cause = "host";
    else if (f.transit_rel >= opts.transit_rel)
      f.cause = "communication";
    else
      f.cause = "unknown";
    // Late for no reason of its own: its Computing and Free are as its stage peers' (judged),
    // so it passes on lateness it inherited (a slow link or rank elsewhere held it up).
    const bool judged = d.computing.steps > 0 && d.peers >= 3;
    if (f.collective_evidence && judged && f.cause != "compute" && f.cause != "host") continue;
    // A rank at the end of a slow link is late because of the link: the link is the finding.
    if (link_ends.count(rank) && f.cause != "compute" && f.cause != "host") continue;
    f.score = std::round(f.impact_ms_per_step * 1000) / 1000;
    if (f.collective_evidence) {
      f.evidence = "its peers wait for it: last to arrive in " + std::to_string(f.last) + " of " +
                   std::to_string(f.trials) + " collectives (" + fmt("%.1f", f.expected_last) +
                   " expected by chance), costing its groups ≈ " + ms(f.impact_ms_per_step) +
                   " per step; " + cause_text(f);
    } else {
      f.evidence = "no collective data for this rank; " + cause_text(f);
    }
    out.findings.push_back(std::move(f));
  }
  // The per-rank judgements are read no more: freed before the host side reads every rank's
  // summary (at 16,384 ranks about 4 MB, held beside the communication step's batches).
  late = {}, net = {}, net_z = {}, dev.ranks = {};
  std::vector<int>().swap(all);
  apply_host_side(out.findings, ranks);  // host/ causes and evidence (analysis/host_cause.h)
  std::sort(out.findings.begin(), out.findings.end(),
            [](const SlowRankFinding& a, const SlowRankFinding& b) {
              return a.score != b.score ? a.score > b.score : a.rank < b.rank;
            });

  // Stage imbalance: stages differ by design; said apart, never as a slow rank.
  if (dev.stages.size() >= 2) {
    auto [lo, hi] = std::minmax_element(
        dev.stages.begin(), dev.stages.end(),
        [](const StageLoad& a, const StageLoad& b) { return a.computing_ms < b.computing_ms; });
    double noise = 0;
    for (const auto& s : dev.stages) noise = std::max(noise, s.sigma_ms);
    const double diff = hi->computing_ms - lo->computing_ms;
    if (lo->computing_ms > 0 && diff > 5 * noise && diff > 0.01 * lo->computing_ms)
      out.stage_imbalance =
          "Pipeline stages carry different work (imbalance, not a slow rank): stage " +
          std::to_string(hi->stage) + " computes " + ms(hi->computing_ms) + " per step, stage " +
          std::to_string(lo->stage) + " " + ms(lo->computing_ms) + " (" +
          fmt("%+.1f%%", diff / lo->computing_ms * 100) +
          "); ranks are compared only with peers of their own stage.";
  }
  if (dev.duplicate_rows > 0)
    out.notes.warn("", 0,
                   "step_trace_time.csv of " + std::to_string(dev.duplicate_ranks.size()) +
                       " rank(s) (first: rank " + std::to_string(dev.duplicate_ranks.front()) +
                       ") repeats rows of a step: " + std::to_string(dev.duplicate_rows) +
                       " repeated row(s) ignored",
                   "the first row of each step was kept; check how the files were written");
  return out;
}

std::vector<SlowRankFinding> find_slow_ranks(const std::vector<load::RankData>& ranks,
                                             const SlowRankOptions& opts) {
  return analyze_slow_ranks(ranks, rank_stages(ranks), {}, opts).findings;
}

io::Table slow_ranks_table(const std::vector<SlowRankFinding>& findings) {
  io::Table t("slow_ranks");
  auto& rank = t.add_int("rank");
  auto& score = t.add_double("score", "ms per step");
  auto& cause = t.add_string("cause");
  auto& evidence = t.add_string("evidence");
  for (const auto& f : findings) {
    rank.ints.push_back(f.rank);
    score.doubles.push_back(f.score);
    cause.strings.push_back(f.cause);
    evidence.strings.push_back(f.evidence);
  }
  return t;
}

}  // namespace cs::analysis
