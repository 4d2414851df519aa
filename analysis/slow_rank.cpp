#include "analysis/slow_rank.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string_view>
#include <unordered_map>

#include "stats/outliers.h"

namespace cs::cluster {

namespace {

struct OpEntry {
  int rank;
  double sync_ms;
  double wait_ms;
  double transit_ms;
};

struct RankAcc {
  int comm_ops = 0, comm_votes = 0;
  double own_wait = 0, peer_wait = 0, net = 0;
  double transit_rel_sum = 0;
  int transit_n = 0;
  int max_group = 0;
  int steps = 0, step_votes = 0, computing_votes = 0, free_votes = 0;
  double computing_rel_sum = 0, free_rel_sum = 0;
};

double value_or_zero(const io::CommOp& op, io::TimeField f) {
  return op.time.has(f) && std::isfinite(op.time.get(f)) ? op.time.get(f) : 0.0;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string ms(double v) {
  return fmt(v < 10 ? "%.2f ms" : "%.1f ms", v);
}
std::string pct(double rel) {
  return fmt("%+.0f%%", rel * 100);
}

// Pipeline-stage index of each rank from distributed_args (Megatron order), -1 when unknown.
int stage_of(const RankData& r) {
  const auto tp = r.metadata.arg("tensor_model_parallel_size");
  const auto dp = r.metadata.arg("data_parallel_size");
  if (!tp || !dp || *tp <= 0 || *dp <= 0 || r.rank() < 0) return -1;
  return static_cast<int>(r.rank() / (*tp * *dp));
}

// Median of `v` without element i.
double median_without(const std::vector<double>& v, size_t i) {
  std::vector<double> o;
  o.reserve(v.size());
  for (size_t j = 0; j < v.size(); ++j)
    if (j != i) o.push_back(v[j]);
  return stats::median(std::move(o));
}

void collective_votes(const std::vector<RankData>& ranks, const SlowRankOptions& opts,
                      std::map<int, RankAcc>& acc) {
  // (step, op key) -> every rank's numbers. Keys keep the group (after '@').
  std::unordered_map<std::string, std::vector<OpEntry>> instances;
  for (const auto& r : ranks) {
    if (!r.has_communication) continue;
    for (const auto& step : r.communication.steps)
      for (const auto& op : step.collective) {
        if (op.is_total() || !op.has_time_info) continue;
        std::string key = step.step;
        key += '\n';
        key += op.name;
        instances[key].push_back({r.rank(), value_or_zero(op, io::kSyncTimeMs),
                                  value_or_zero(op, io::kWaitTimeMs),
                                  value_or_zero(op, io::kTransitTimeMs)});
      }
  }
  std::vector<double> vals, transit;
  for (const auto& [key, entries] : instances) {
    const size_t n = entries.size();
    if (n < 2) continue;
    bool any_sync = false;
    for (const auto& e : entries) any_sync |= e.sync_ms > 0;
    vals.clear();
    transit.clear();
    for (const auto& e : entries) {
      vals.push_back(any_sync ? e.sync_ms : e.wait_ms);
      transit.push_back(e.transit_ms);
    }
    const double med = stats::median(vals);
    const double med_transit = stats::median(transit);
    long late = -1;
    if (n <= 100) {
      late = stats::extreme_outlier(vals, stats::Tail::kLow);
    } else {
      const auto out = stats::robust_outliers(vals, stats::Tail::kLow, opts.z_threshold);
      for (size_t i : out)
        if (late < 0 || vals[i] < vals[static_cast<size_t>(late)]) late = static_cast<long>(i);
    }
    if (late >= 0 &&
        median_without(vals, static_cast<size_t>(late)) - vals[static_cast<size_t>(late)] <
            opts.min_gap_ms)
      late = -1;
    for (size_t i = 0; i < n; ++i) {
      auto& a = acc[entries[i].rank];
      ++a.comm_ops;
      a.own_wait += vals[i];
      a.peer_wait += median_without(vals, i);
      a.net += med - vals[i];
      a.max_group = std::max(a.max_group, static_cast<int>(n));
      if (med_transit > 0) {
        a.transit_rel_sum += transit[i] / med_transit - 1;
        ++a.transit_n;
      }
      if (static_cast<long>(i) == late) ++a.comm_votes;
    }
  }
}

void step_trace_votes(const std::vector<RankData>& ranks, const SlowRankOptions& opts,
                      std::map<int, RankAcc>& acc) {
  struct Cell {
    int rank;
    double computing, free;
  };
  std::map<std::pair<std::string, int>, std::vector<Cell>> cells;  // (step, stage) -> ranks
  for (const auto& r : ranks) {
    if (!r.has_step_trace) continue;
    const int stage = stage_of(r);
    for (const auto& row : r.step_trace.rows)
      cells[{row.step, stage}].push_back(
          {r.rank(), r.step_trace.get(row, "Computing"), r.step_trace.get(row, "Free")});
  }
  std::vector<double> comp, fr;
  for (const auto& [key, v] : cells) {
    if (v.size() < 2) continue;
    comp.clear();
    fr.clear();
    for (const auto& c : v) comp.push_back(c.computing), fr.push_back(c.free);
    for (size_t i = 0; i < v.size(); ++i) {
      auto& a = acc[v[i].rank];
      ++a.steps;
      const double mc = median_without(comp, i), mf = median_without(fr, i);
      const double rc = mc > 0 && std::isfinite(comp[i]) ? comp[i] / mc - 1 : 0.0;
      // Free is small next to a step: compare its excess with the step's Computing, so a few
      // microseconds of extra idle on an almost-busy rank is not a "+50%".
      const double rf =
          mc > 0 && std::isfinite(fr[i]) && std::isfinite(mf) ? (fr[i] - mf) / mc : 0.0;
      a.computing_rel_sum += rc;
      a.free_rel_sum += rf;
      const bool c_out = rc >= opts.step_rel, f_out = rf >= opts.step_rel;
      a.computing_votes += c_out;
      a.free_votes += f_out;
      a.step_votes += c_out || f_out;
    }
  }
}

std::string evidence_of(const SlowRankFinding& f, bool comm_flag, bool step_flag) {
  std::string s;
  if (comm_flag) {
    s += "late in " + std::to_string(f.comm_votes) + " of " + std::to_string(f.comm_ops) +
         " collective ops: waits " + ms(f.mean_wait_ms) + " on average where its " +
         std::to_string(f.peers) + " peers wait " + ms(f.peer_mean_wait_ms);
  }
  if (step_flag || std::abs(f.computing_rel) >= 0.02 || f.free_rel >= 0.02) {
    if (!s.empty()) s += "; ";
    s += "Computing " + pct(f.computing_rel) + " vs stage median";
    if (f.free_rel >= 0.02) s += ", Free +" + fmt("%.0f", f.free_rel * 100) + "% of Computing";
    if (step_flag)
      s += " (stands out in " + std::to_string(f.step_votes) + " of " + std::to_string(f.steps) +
           " steps)";
  }
  if (f.cause == "communication") {
    if (!s.empty()) s += "; ";
    s += "its transfers take " + pct(f.transit_rel) + " longer than its peers'";
  }
  return s;
}

}  // namespace

std::vector<SlowRankFinding> find_slow_ranks(const std::vector<RankData>& ranks,
                                             const SlowRankOptions& opts) {
  std::map<int, RankAcc> acc;
  collective_votes(ranks, opts, acc);
  step_trace_votes(ranks, opts, acc);

  // Net lateness across ranks: only a high outlier can be a culprit of collective lateness.
  std::vector<int> ids;
  std::vector<double> net;
  for (const auto& [rank, a] : acc)
    if (a.comm_ops > 0) ids.push_back(rank), net.push_back(a.net);
  const auto z = stats::robust_z(net);
  std::map<int, double> net_z;
  for (size_t i = 0; i < ids.size(); ++i) net_z[ids[i]] = z[i];

  std::vector<SlowRankFinding> out;
  for (const auto& [rank, a] : acc) {
    SlowRankFinding f;
    f.rank = rank;
    f.comm_votes = a.comm_votes;
    f.comm_ops = a.comm_ops;
    f.mean_wait_ms = a.comm_ops ? a.own_wait / a.comm_ops : 0;
    f.peer_mean_wait_ms = a.comm_ops ? a.peer_wait / a.comm_ops : 0;
    f.net_lateness_ms = a.net;
    f.peers = std::max(0, a.max_group - 1);
    f.step_votes = a.step_votes;
    f.steps = a.steps;
    f.computing_rel = a.steps ? a.computing_rel_sum / a.steps : 0;
    f.free_rel = a.steps ? a.free_rel_sum / a.steps : 0;
    f.transit_rel = a.transit_n ? a.transit_rel_sum / a.transit_n : 0;

    const auto zi = net_z.find(rank);
    const bool comm_flag = a.comm_votes >= opts.min_votes &&
                           a.comm_votes >= opts.min_vote_share * a.comm_ops && a.net > 0 &&
                           zi != net_z.end() && zi->second >= opts.z_threshold;
    const bool step_flag = a.steps > 0 && a.step_votes >= opts.min_step_share * a.steps;
    if (!comm_flag && !step_flag) continue;

    const bool compute = a.steps > 0 && a.computing_votes >= opts.min_step_share * a.steps;
    const bool host = a.steps > 0 && a.free_votes >= opts.min_step_share * a.steps;
    if (compute && (!host || f.computing_rel >= f.free_rel))
      f.cause = "compute";
    else if (host)
      f.cause = "host";
    else if (f.transit_rel >= opts.transit_rel)
      f.cause = "communication";
    else
      f.cause = "unknown";
    f.score = (comm_flag ? a.comm_votes : 0) + a.step_votes;
    f.evidence = evidence_of(f, comm_flag, step_flag);
    out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const SlowRankFinding& a, const SlowRankFinding& b) {
    return a.score != b.score ? a.score > b.score : a.rank < b.rank;
  });
  return out;
}

io::Table slow_ranks_table(const std::vector<SlowRankFinding>& findings) {
  io::Table t("slow_ranks");
  auto& rank = t.add_int("rank");
  auto& score = t.add_double("score", "votes");
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

}  // namespace cs::cluster
