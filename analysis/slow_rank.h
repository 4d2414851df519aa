#pragma once
// Slow-rank detection (the "slow_ranks" table: rank,score,cause,evidence).
//
// A slow rank matters because its peers wait for it. A finding therefore needs impact:
//  - Collective evidence (collective_lateness.h): the rank arrives last at its collectives far
//    more often than chance (last_z >= min_last_z, and last in at least min_last_share of its
//    decided instances), in every captured step, and the time its peers wait for it, net of the
//    time it waited itself beyond its stage peers, is at least min_impact_share of its step.
//    Its impact is reported as time: "costs its groups ≈ 1.8 ms per step" (the peers' median
//    wait for it, summed over the instances where it came last). Being late must also have a
//    cause of its own: where its stage peers' step traces can judge it (3+ peers), its Computing
//    or Free must stand above their noise by step_z in every step (else it only passes on
//    lateness it inherited, e.g. from a slow link); where they cannot, its net impact must be a
//    high outlier among its stage peers (robust z >= net_z).
//  - With no communication data for the rank: its Computing (or Free) time stands above its
//    pipeline-stage peers by at least alone_z robust sigmas of those peers in EVERY captured step
//    (alone_z_one_step when only one step was captured).
// Ranks are compared only with peers of the same pipeline stage (rank_stages()); a difference
// between stages is reported apart as stage imbalance, never as a slow rank.
// Cause: compute (Computing above its stage peers by step_z sigmas in every step), host (Free
// likewise), communication (its transfers are slower than its peers'), else unknown. A rank at an
// end of a slow link is reported only with a compute or host cause: a slow link is never blamed
// on a rank. Work is linear in the input rows (plus sorts of each group's members).

#include <string>
#include <vector>

#include "analysis/collective_lateness.h"
#include "analysis/slow_link.h"
#include "io/diagnostics.h"
#include "io/table.h"
#include "load/rank_data.h"
#include "stats/topn.h"

namespace cs::analysis {

struct SlowRankOptions {
  double min_last_z = 2.5;         // last arrivals above chance, in binomial sigmas
  double min_last_share = 0.5;     // last in at least this share of its decided collectives
  double net_z = 3.0;              // robust z of the net impact among ranks
  double min_impact_share = 0.01;  // impact per step, at least this share of its step time
  double step_z = 3.0;             // step-trace z (every step) naming the cause
  double alone_z = 5.0;            // step-trace z (every step) flagging a rank with no comm data
  double alone_z_one_step = 8.0;   // the same when one step was captured
  double transit_rel = 0.2;        // own transit above the members' median -> communication
  LatenessOptions lateness;        // threads and batch size of the collective walk (no effect on
                                   // the findings)
};

struct SlowRankFinding {
  int rank = -1;
  double score = 0;   // impact in ms per step (the table's score)
  std::string cause;  // compute, host, communication, unknown
  std::string evidence;
  // The numbers behind the evidence.
  double impact_ms_per_step = 0;  // peers' wait for it per step (or its excess with no comm)
  int last = 0, trials = 0;       // decided collectives where it came last / took part
  double expected_last = 0;       // by chance
  int steps = 0;
  int peers = 0;             // its stage peers
  double computing_rel = 0;  // mean Computing / stage median - 1
  double computing_excess_ms = 0, computing_z = 0;
  double free_excess_ms = 0, free_z = 0;
  double transit_rel = 0;
  bool collective_evidence = false;
};

// Everything the slow-rank analysis tells: findings (largest impact first), a sentence on stage
// imbalance ("" when the stages are balanced or unknown), and notes (duplicated rows, too little
// data to judge).
struct SlowRankAnalysis {
  std::vector<SlowRankFinding> findings;
  std::string stage_imbalance;
  io::Diagnostics notes;
};

// `stages`: rank -> pipeline stage (rank_stages()); `slow_links` from find_slow_links().
SlowRankAnalysis analyze_slow_ranks(const std::vector<load::RankData>& ranks,
                                    const stats::RankStages& stages,
                                    const std::vector<SlowLinkFinding>& slow_links,
                                    const SlowRankOptions& opts = {});

// The findings alone; stages from rank_stages(ranks) (profiler metadata), no slow links.
std::vector<SlowRankFinding> find_slow_ranks(const std::vector<load::RankData>& ranks,
                                             const SlowRankOptions& opts = {});

// The "slow_ranks" table: rank,score,cause,evidence.
io::Table slow_ranks_table(const std::vector<SlowRankFinding>& findings);

}  // namespace cs::analysis
