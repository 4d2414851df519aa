#pragma once
// A tiny in-test cluster simulator that fills RankData directly (communication.json ops, step
// trace rows, profiler metadata), for the slow-rank tests: TP groups (consecutive ranks) and DP
// groups (same tp index), compute segments with noise between TP collectives, one DP allreduce
// per step. A slow rank multiplies its compute; a host-slow rank adds idle before each segment.

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "load/rank_data.h"

namespace cs::testing {

struct SyntheticOptions {
  int ranks = 16;
  int tp = 4;
  int steps = 4;
  int segments = 12;           // TP collectives per step
  double compute_us = 400;     // per segment
  double noise = 0.03;         // relative compute noise
  double overhead_us = 15;     // mean launch overhead before a collective (uniform 0.5x..1.5x)
  std::map<int, double> slow;  // rank -> compute factor
  std::map<int, double> host;  // rank -> extra idle us per segment
  uint64_t seed = 1;
};

inline readers::CommOp make_op(const std::string& name, double elapse_ms, double transit_ms,
                               double wait_ms, double sync_ms) {
  readers::CommOp op;
  op.name = name;
  op.has_time_info = true;
  op.time.set(readers::kStartTimestampUs, io::Num::real(0));
  op.time.set(readers::kElapseTimeMs, io::Num::real(elapse_ms));
  op.time.set(readers::kTransitTimeMs, io::Num::real(transit_ms));
  op.time.set(readers::kWaitTimeMs, io::Num::real(wait_ms));
  op.time.set(readers::kSyncTimeMs, io::Num::real(sync_ms));
  op.time.set(readers::kIdleTimeMs, io::Num::real(std::max(0.0, elapse_ms - transit_ms - wait_ms)));
  op.has_bandwidth_info = true;
  readers::TransportInfo hccs;
  hccs.name = readers::TransportName("HCCS");
  hccs.set(readers::kTrSizeMb, io::Num::real(8.0));
  hccs.set(readers::kTrTimeMs, io::Num::real(transit_ms));
  op.transports.push_back(hccs);
  return op;
}

inline std::vector<load::RankData> synthetic_cluster(const SyntheticOptions& o) {
  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> u(0, 1);
  const int dp = o.ranks / o.tp;
  std::vector<load::RankData> rd(static_cast<size_t>(o.ranks));
  for (int r = 0; r < o.ranks; ++r) {
    auto& d = rd[static_cast<size_t>(r)];
    d.entry.rank = r;
    d.has_communication = d.has_step_trace = d.has_metadata = true;
    d.metadata.has_distributed_args = true;
    d.metadata.distributed_args.set("tensor_model_parallel_size", o.tp);
    d.metadata.distributed_args.set("data_parallel_size", dp);
    d.metadata.distributed_args.set("pipeline_model_parallel_size", 1);
    d.step_trace.edit().columns = {
        "Computing",  "Communication(Not Overlapped)",
        "Overlapped", "Communication",
        "Free",       "Stage",
        "Bubble",     "Communication(Not Overlapped and Exclude Receive)",
        "Preparing"};
  }
  auto factor = [&](int r) { return o.slow.count(r) ? o.slow.at(r) : 1.0; };
  auto host = [&](int r) { return o.host.count(r) ? o.host.at(r) : 0.0; };
  std::vector<double> now(static_cast<size_t>(o.ranks), 0.0);
  // One collective over `members`: returns per-member (elapse, transit, wait, sync) in ms.
  auto collective = [&](const std::vector<int>& members, const std::string& name,
                        std::vector<readers::CommStep>& steps_of, double transit_ms) {
    std::vector<double> ready;
    double last = 0;
    for (int r : members) {
      ready.push_back(now[static_cast<size_t>(r)] + o.overhead_us * (0.5 + u(rng)));
      last = std::max(last, ready.back());
    }
    for (size_t i = 0; i < members.size(); ++i) {
      const int r = members[i];
      const double start = now[static_cast<size_t>(r)];
      const double end = last + transit_ms * 1000 + 2;
      const double sync = (last - ready[i]) / 1000;
      steps_of[static_cast<size_t>(r)].collective.push_back(
          make_op(name, (end - start) / 1000, transit_ms, sync, sync));
      now[static_cast<size_t>(r)] = end;
    }
  };
  for (int s = 1; s <= o.steps; ++s) {
    std::vector<readers::CommStep> steps_of(static_cast<size_t>(o.ranks));
    std::vector<double> computing(static_cast<size_t>(o.ranks), 0.0),
        free_us(static_cast<size_t>(o.ranks), 0.0), step_start = now;
    for (int k = 0; k < o.segments; ++k) {
      for (int r = 0; r < o.ranks; ++r) {
        const double c = o.compute_us * factor(r) * (1 + o.noise * (2 * u(rng) - 1));
        computing[static_cast<size_t>(r)] += c;
        free_us[static_cast<size_t>(r)] += host(r) + 5;
        now[static_cast<size_t>(r)] += c + host(r) + 5;
      }
      for (int g = 0; g < dp && o.tp > 1; ++g) {
        std::vector<int> members;
        for (int i = 0; i < o.tp; ++i) members.push_back(g * o.tp + i);
        collective(members, "hcom_allGather__1_" + std::to_string(k) + "_1@tp" + std::to_string(g),
                   steps_of, 0.05);
      }
    }
    for (int t = 0; t < o.tp && dp > 1; ++t) {
      std::vector<int> members;
      for (int g = 0; g < dp; ++g) members.push_back(g * o.tp + t);
      collective(members, "hcom_allReduce__2_0_1@dp" + std::to_string(t), steps_of, 0.3);
    }
    for (int r = 0; r < o.ranks; ++r) {
      auto& d = rd[static_cast<size_t>(r)];
      steps_of[static_cast<size_t>(r)].step = "step" + std::to_string(s);
      d.communication.edit().steps.push_back(std::move(steps_of[static_cast<size_t>(r)]));
      const double stage = now[static_cast<size_t>(r)] - step_start[static_cast<size_t>(r)];
      const double comm =
          stage - computing[static_cast<size_t>(r)] - free_us[static_cast<size_t>(r)];
      d.step_trace.edit().rows.push_back({std::to_string(s),
                                          {computing[static_cast<size_t>(r)], comm, 0, comm,
                                           free_us[static_cast<size_t>(r)], stage, 0, comm, 0}});
    }
  }
  return rd;
}

}  // namespace cs::testing
