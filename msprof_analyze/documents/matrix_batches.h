#pragma once
// The ranks' matrix links walked by group tuple, one batch of tuples at a time, so that the matrix
// merge never holds every rank's matrix at once (the root's memory stays flat in the ranks:
// docs/root_memory.md), as comm_batches.h does for the communication ops.
// cluster_communication_matrix.json is ordered by group tuple at its top level and each tuple is
// merged on its own, so a batch can be merged, rendered and dropped before the next is read. A
// first pass reads every rank's matrix once (held, packed or spilled) and keeps only which group
// tuples it reports, in document order; a batch then reads again only the ranks that report
// links of its tuples and keeps only those ops.
//
//   const MatrixBatches batches(ranks, groups, threads);
//   for (size_t b = 0; b < batches.size(); ++b) {
//     const MatrixBatch batch = batches.load(b, threads);
//     for (const MatrixGroupEntry& ge : batch.index.groups) ...  // document order
//   }

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "load/rank_data.h"
#include "msprof_analyze/documents/communication_groups.h"
#include "msprof_analyze/documents/tuple_batches.h"

namespace cs::documents {

// The index of the document's ops: group tuple -> step -> op key -> reporting ranks, each in
// first-appearance order over the ranks (sorted by rank), the first report of a rank kept.
struct MatrixRef {
  int rank;
  const readers::MatrixOp* op;
  const readers::MatrixFile* file;  // holds the texts of op's links
  std::string_view link_key(const readers::MatrixLink& l) const { return file->link_key(l); }
};
struct MatrixOpEntry {
  std::string key;
  std::vector<MatrixRef> ranks;
};
struct MatrixStepEntry {
  std::string step;
  std::vector<MatrixOpEntry> ops;
  std::unordered_map<std::string, size_t> idx;
};
struct MatrixGroupEntry {
  std::string tuple;
  std::vector<MatrixStepEntry> steps;
  std::unordered_map<std::string, size_t> idx;
};
struct MatrixIndex {
  std::vector<MatrixGroupEntry> groups;
  std::unordered_map<std::string, size_t> idx;
};

// One batch of group tuples: the whole index restricted to them (same order of tuples, steps, ops
// and ranks), pointing into the matrix ops the batch owns.
struct MatrixBatch {
  MatrixIndex index;
  // Per reporting rank (in rank order), its matrix with only the batch's tuples' ops.
  std::vector<readers::MatrixFile> kept;
};

// The longest value (bytes) of each string the communication_matrix table holds
// (analysis/comm_matrix_table.h), over every link of every rank, and their bytes summed over the
// link reports (mean sizes): known after the first pass, before any batch is merged, so the
// table's fixed-width HDF5 string columns can be created before its first row. The merged links
// take their strings from the ranks' (and "Total Op Info" for the totals), so these bound them.
struct MatrixStringWidths {
  size_t step = 0;       // step names
  size_t group = 0;      // group names (after the op key's last '@')
  size_t op = 0;         // op keys without the group (the whole key when it has none)
  size_t transport = 0;  // transport names
  size_t op_name = 0;    // the links' "Op Name"
  uint64_t links = 0, step_bytes = 0, group_bytes = 0, op_bytes = 0, transport_bytes = 0,
           op_name_bytes = 0;
  void add(const MatrixStringWidths& o);
};

class MatrixBatches {
 public:
  // Link reports per batch by default: about 4 MB of matrix data at a time.
  static constexpr size_t kBatchLinks = 1 << 16;

  // The first pass over `ranks` (sorted by rank), each read once on up to `threads` threads.
  // Batches are consecutive tuples of about `batch_links` link reports each (a tuple is never
  // split; 0 = kBatchLinks). `ranks` and `groups` must outlive this object. Throws
  // std::runtime_error when a rank's packed or spilled matrix cannot be read.
  MatrixBatches(const std::vector<load::RankData>& ranks, const CommGroups& groups, int threads = 1,
                size_t batch_links = kBatchLinks);

  // Group tuples in the document (0 when every op is a "Total Op Info" one or there is none:
  // msprof-analyze then writes no file).
  size_t tuples() const { return plan_.tuples(); }
  // The longest strings of every link (see MatrixStringWidths).
  const MatrixStringWidths& widths() const { return widths_; }
  // Number of batches.
  size_t size() const { return plan_.size(); }
  // Batch i: its tuples' ops read from the ranks that report them, on up to `threads` threads.
  // Throws std::runtime_error when a rank's packed or spilled matrix cannot be read.
  MatrixBatch load(size_t i, int threads = 1) const;

 private:
  const std::vector<load::RankData>& ranks_;
  const CommGroups& groups_;
  TupleBatches plan_;  // tuples in document order, their ranks, the batches
  MatrixStringWidths widths_;
};

}  // namespace cs::documents
