#pragma once
// ClusterCommunicationMatrix built from the parked ranks without holding the merged matrix
// (issue 38, docs/root_memory.md "ClusterCommunicationMatrix streamed").
//
// A merged link is keyed by (rank set, step, op, group, src, dst) and summed over every rank
// reporting it; links of different (group, global src rank) never merge, and which of those
// "partitions" a rank's rows touch is kept beside its parked frame (own_rows). So the walk over
// the ranks in rank order knows after which rank a partition takes no more rows: its links are
// then final and leave the table (in these jobs a rank reports its own links: the table holds
// one rank's links). The links keep the position of their first row (rank, row), the table's
// order; they and their "Total Op Info" rows (per (group, step, src, dst), which lie in one
// partition) go to runs on disk sorted by position (recipes/sorted_runs.h), merged back in order
// while the table is written. The same rows, sums and order as merge_communication_matrix of the
// held frames.

#include <memory>
#include <string>
#include <vector>

#include "frame/frame.h"
#include "io/diagnostics.h"
#include "msprof_analyze/recipes/recipe.h"
#include "msprof_analyze/recipes/sorted_runs.h"
#include "runtime/spill_file.h"

namespace cs::recipes::communication_matrix_sum {

// The merged matrix in sorted runs: its links, then its "Total Op Info" rows, each in
// output_frame()'s columns (src_rank and dst_rank the global ranks as integers), ordered by
// position.
struct StreamedMatrix {
  static constexpr size_t kChunkRows = 4096;  // rows a chunk of the runs
  explicit StreamedMatrix(std::shared_ptr<runtime::SpillFile> file)
      : links(10, kChunkRows, file), totals(10, kChunkRows, std::move(file)) {}
  SortedRuns links, totals;
  std::vector<uint8_t> kinds = std::vector<uint8_t>(10, 0);  // per column, over every row
  uint64_t rows() const { return links.rows() + totals.rows(); }
  // Why the runs stayed in memory (empty: they did not).
  std::string problem() const {
    return links.problem().empty() ? totals.problem() : links.problem();
  }
};

// The merged matrix of `parts` (in rank order, held or parked; the matrix frames taken), its
// rows stored in `file` (held in memory when null). Throws std::runtime_error when a parked frame
// cannot be read back.
std::unique_ptr<StreamedMatrix> stream_matrix(std::vector<RankPartial>& parts,
                                              std::shared_ptr<runtime::SpillFile> file);
// Every row of `m`, as one frame (output_frame()'s columns). Throws std::runtime_error when a
// run cannot be read back.
frame::Frame collect_matrix(const StreamedMatrix& m);
// Writes `m` as table ClusterCommunicationMatrix of the database `db` (src_rank and dst_rank as
// REAL), read back a few thousand rows at a time: the bytes write_frame_sqlite gives for
// collect_matrix(m) with those two columns made real. False with an error in `diag` on failure.
bool write_streamed_matrix(const StreamedMatrix& m, const std::string& db, io::Diagnostics& diag);

}  // namespace cs::recipes::communication_matrix_sum
