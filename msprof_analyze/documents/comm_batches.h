#pragma once
// The communication ops walked by group tuple, one batch of tuples at a time, so that no step
// holds every rank's ops at once (the root's memory stays flat in the ranks: docs/root_memory.md).
// cluster_communication.json is ordered by group tuple at its top level, and the tables built
// from it sort their rows at the end, so a batch can be rendered and dropped before the next is
// read. A first pass reads every rank once (packed, spilled or not) and keeps only which group
// tuples it reports, in document order; a batch then reads again only the ranks that report ops
// of its tuples and keeps only those ops.
//
//   const CommBatches batches(ranks, groups, threads);
//   for (size_t b = 0; b < batches.size(); ++b) {
//     const CommBatch batch = batches.load(b, threads);
//     for (const CommGroupEntry& ge : batch.index.groups) ...  // document order
//   }

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "load/rank_data.h"
#include "msprof_analyze/documents/cluster_communication.h"
#include "msprof_analyze/documents/communication_groups.h"
#include "msprof_analyze/documents/tuple_batches.h"

namespace cs::documents {

// One batch of group tuples: index_communication()'s index restricted to them (same order of
// tuples, steps, ops and ranks as the whole index), pointing into ops the batch owns.
struct CommBatch {
  CommIndex index;
  // The ops of one rank that the batch keeps (the index points into `ops`).
  struct RankOps {
    std::vector<std::string> steps;
    std::vector<readers::CommOp> ops;
  };
  std::vector<RankOps> kept;
};

// The longest value of each string the tables built from the ops hold (analysis/comm_op_tables.h),
// over every op of every rank: known after the first pass, before any batch, so the tables'
// fixed-width HDF5 string columns can be created before their first row.
struct CommStringWidths {
  size_t step = 0;                       // step names
  size_t group = 0;                      // group names (after the op key's last '@')
  size_t op = 0;                         // op keys without the group
  size_t transport = 0;                  // transport names of the ops with bandwidth info
  bool collective = false, p2p = false;  // whether any op is one
  // The op reports, and the bytes of their step, group and op strings summed over them; the
  // transports of the ops with bandwidth info and their names' bytes (mean sizes).
  uint64_t reports = 0, step_bytes = 0, group_bytes = 0, op_bytes = 0;
  uint64_t transports = 0, transport_bytes = 0;
};

class CommBatches {
 public:
  // Op reports per batch by default: about 10 MB of ops at a time.
  static constexpr size_t kBatchOps = 1 << 15;

  // The first pass over `ranks` (sorted by rank), each read once on up to `threads` threads.
  // Batches are consecutive tuples of about `batch_ops` op reports each (a tuple is never
  // split). `ranks` and `groups` must outlive this object.
  CommBatches(const std::vector<load::RankData>& ranks, const CommGroups& groups, int threads = 1,
              size_t batch_ops = kBatchOps);

  // Group tuples in the document (0 when no rank reports an op: msprof-analyze writes no file).
  size_t tuples() const { return plan_.tuples(); }
  // The longest strings of every op (see CommStringWidths).
  const CommStringWidths& widths() const { return widths_; }
  // Number of batches.
  size_t size() const { return plan_.size(); }
  // Batch i: its tuples' ops read from the ranks that report them, on up to `threads` threads.
  // Throws std::runtime_error when a rank's packed or spilled ops cannot be read.
  CommBatch load(size_t i, int threads = 1) const;

 private:
  const std::vector<load::RankData>& ranks_;
  const CommGroups& groups_;
  TupleBatches plan_;  // tuples in document order, their ranks, the batches
  CommStringWidths widths_;
};

}  // namespace cs::documents
