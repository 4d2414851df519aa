#pragma once
// The collective instances of every rank for collective_lateness(), walked a batch of
// communication groups at a time, so that the root never holds every rank's instances at once
// (docs/root_memory.md; the batches: analysis/group_batches.h). An instance (step, op key) lies
// in one group: its op key ends in the group's name (documents::py_group_of). A first pass reads
// every rank once (packed, spilled or not) and keeps only its totals (own wait, steps), its step
// names' ids and which groups it reports collectives of; a batch then reads again only the ranks of
// its groups and keeps only their instances. A rank's wait in its previous op (in time, over ALL
// its ops, any group, collective or p2p) is worked out from the whole rank each time it is read.
//
//   const LatenessWalk walk(ranks, threads);
//   for (size_t b = 0; b < walk.size(); ++b)
//     for (std::vector<LatenessEntry>& instance : walk.load(b, threads)) ...

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/group_batches.h"
#include "load/rank_data.h"

namespace cs::analysis {

// One rank's report of one collective instance.
struct LatenessEntry {
  int rank;
  int step;            // step id: step names numbered in first-appearance order over the ranks
  double prev_wait;    // its own wait in its previous op (in time)
  double wait_ms;      // sync when the instance has sync times, else wait (set when judged)
  double sync_ms;      // 0 when not reported
  double raw_wait_ms;  // 0 when not reported
  double transit_ms;   // 0 when not reported
};

// What a rank reports over all its ops (collective and p2p).
struct RankCommTotals {
  double own_wait_ms = 0;  // its own wait (sync, else wait) summed in file order
  int steps = 0;           // steps with ops
};

class LatenessWalk {
 public:
  // Instance reports per batch by default (about 0.6 MB of entries and keys at a time).
  static constexpr size_t kBatchEntries = 1 << 12;

  // The first pass over `ranks` (those with communication data and a rank id), each read once on
  // up to `threads` threads. Batches are consecutive groups (first-appearance order over the
  // ranks) of about `batch_entries` reports each; a group is never split. `ranks` must outlive
  // this object. Throws std::runtime_error when a rank's packed or spilled ops cannot be read.
  LatenessWalk(const std::vector<load::RankData>& ranks, int threads = 1,
               size_t batch_entries = kBatchEntries);

  // Per rank id: its totals (ranks listed twice add up, in their order).
  const std::map<int, RankCommTotals>& totals() const { return totals_; }
  // Number of batches.
  size_t size() const { return batches_.size(); }
  // Batch i's instances, each with its entries in the order of `ranks` (each rank's in time
  // order), read on up to `threads` threads. The order of the instances is unspecified.
  std::vector<std::vector<LatenessEntry>> load(size_t i, int threads = 1) const;

 private:
  const std::vector<load::RankData>& ranks_;
  std::map<int, RankCommTotals> totals_;
  std::unordered_map<std::string, int> step_ids_;
  GroupBatches batches_;
};

}  // namespace cs::analysis
