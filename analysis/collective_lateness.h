#pragma once
// Who makes its peers wait: per-rank evidence from the collectives of communication.json.
//
// In a collective every member waits for the last to arrive, so the last one waits least. For
// each instance (step, op name with its group) the member with the smallest Synchronization time
// (Wait time when no member reports one) arrived last; what it cost the group is the median wait
// of the OTHER members minus its own. The instance is "decided" when that cost stands above the
// spread of the other members' waits (more than 3 robust sigmas): back-to-back ops where nobody
// waits name nobody. Under the null (no slow rank) each member of a decided instance of n is the
// last with chance 1/n; a rank that is last far more often than chance, and whose peers' waiting
// is not explained by its own waiting elsewhere, is the one the others wait for.
// A rank late only because it waited in its previous op (in time, by Start Timestamp) passes the
// lateness on rather than causing it: its cost counts net of that wait (a victim of a slow rank
// or link is late at its next collective too, for a reason).
// Instances whose members lie in different pipeline stages are skipped: stages do different
// work by design. Linear in the number of ops (plus a sort per instance of its n members).
// The ranks are walked a batch of communication groups at a time (analysis/lateness_walk.h):
// memory holds one batch's instances, not every rank's; the sums over a rank's instances are
// exact (stats/exact_sum.h), so any batch size and thread count gives the same bits.
//
//   auto late = collective_lateness(ranks, rank_stages(ranks));
//   late[21].last -> 18, late[21].expected -> 5.5, late[21].imposed_ms -> 26.3 (over 2 steps)

#include <cstddef>
#include <utility>
#include <vector>

#include "analysis/by_rank.h"
#include "load/rank_data.h"
#include "stats/topn.h"

namespace cs::analysis {

struct RankLateness {
  int instances = 0;            // collective instances the rank took part in
  int trials = 0;               // of which decided
  int last = 0;                 // decided instances where it arrived last
  double expected = 0;          // sum of 1/n over its decided instances: last by chance
  double variance = 0;          // sum of (1/n)(1 - 1/n)
  double imposed_ms = 0;        // sum over the decided instances where it was last of the cost,
                                // net of its own wait in its previous op
  std::vector<int> late_steps;  // steps (ids) where it came last with a cost of its own, sorted
  double own_wait_ms = 0;       // its own wait summed over all its ops (collective and p2p)
  double transit_rel = 0;       // mean over instances of own transit / members' median - 1
  int transit_n = 0;
  int steps = 0;      // steps with communication ops
  int max_group = 0;  // largest instance it took part in

  // Last-arrival count above chance in binomial sigmas (0 when no decided instance).
  double last_z() const;
};

struct LatenessOptions {
  int threads = 1;           // ranks read on up to this many threads
  size_t batch_entries = 0;  // instance reports per batch (0: LatenessWalk::kBatchEntries)
};

// Per-rank lateness, sorted by rank: a flat map, one entry per rank with communication data (the
// root holds one for each of 16,384 ranks while the communication tables are built beside it).
using LatenessByRank = ByRank<RankLateness>;

// Per-rank lateness (ranks without communication data are absent).
// `stages`: rank -> pipeline stage (empty: one stage). Throws std::runtime_error when a rank's
// packed or spilled ops cannot be read.
LatenessByRank collective_lateness(const std::vector<load::RankData>& ranks,
                                   const stats::RankStages& stages,
                                   const LatenessOptions& opts = {});

}  // namespace cs::analysis
