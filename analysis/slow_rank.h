#pragma once
// Slow-rank detection (the "slow_ranks" table: rank,score,cause,evidence).
//
// Signals, each a vote for a rank:
//  - Collectives: for every (step, group, op) instance, the ranks' Synchronization times (Wait
//    when no rank reports a sync time). The late rank waits least while its peers wait for it:
//    a low outlier by Dixon's Q test at 99.5% (3..100 ranks) or a robust z <= -3.5 (more ranks),
//    whose gap to the peers' median is at least min_gap_ms, gets one vote.
//  - Step trace: per step and pipeline stage (pp index from profiler_metadata.json's
//    distributed_args, else one stage), a rank whose Computing (or Free) exceeds the median of its
//    stage peers by at least step_rel gets one vote.
// A rank's lateness in one group can be caused by waiting for a slow rank in another (its TP peers
// are late together in their DP groups), so collective votes count only when the rank's net
// lateness (sum over its collectives of the group's median wait minus its own) is a high outlier
// among all ranks: the true culprit makes others wait much more than it waits itself.
// Cause: compute (Computing stands out), host (Free stands out), communication (its own transit
// times are well above its peers'), else unknown. Output sorted by score, highest first.

#include <string>
#include <vector>

#include "io/table.h"
#include "load/rank_data.h"

namespace cs::cluster {

struct SlowRankOptions {
  double min_gap_ms = 0.02;     // a vote needs the peers to wait at least this much longer
  double min_vote_share = 0.1;  // collective votes / collective ops of the rank, to be flagged
  int min_votes = 3;
  double z_threshold = 3.5;     // robust z for the net lateness across ranks
  double step_rel = 0.05;       // Computing / Free above the stage median by this share
  double min_step_share = 0.5;  // share of steps with a step-trace vote, to be flagged
  double transit_rel = 0.2;     // own transit above peers' median by this share -> communication
};

struct SlowRankFinding {
  int rank = -1;
  double score = 0;   // votes: collective ops where it was late + steps where it stood out
  std::string cause;  // compute, host, communication, unknown
  std::string evidence;
  // The numbers behind the evidence.
  int comm_votes = 0;
  int comm_ops = 0;
  double mean_wait_ms = 0;       // its mean sync (or wait) time over collective ops
  double peer_mean_wait_ms = 0;  // mean over its ops of the peers' median sync time
  double net_lateness_ms = 0;
  int peers = 0;  // size of its largest group minus one
  int step_votes = 0;
  int steps = 0;
  double computing_rel = 0;  // mean over steps of Computing / stage peers' median - 1
  double free_rel = 0;
  double transit_rel = 0;  // mean own transit / peers' median transit - 1
};

// Ranks judged slow, most votes first (ties: lower rank first). `ranks` sorted by rank.
std::vector<SlowRankFinding> find_slow_ranks(const std::vector<RankData>& ranks,
                                             const SlowRankOptions& opts = {});

// The "slow_ranks" table: rank,score,cause,evidence.
io::Table slow_ranks_table(const std::vector<SlowRankFinding>& findings);

}  // namespace cs::cluster
