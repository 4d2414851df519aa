#pragma once
// communication_time_sum's two big tables, ClusterCommunicationTime and
// ClusterCommunicationBandwidth, written from the ranks one at a time instead of from their
// concatenation (issue 38, docs/root_memory.md "What a flat root needs on DB exports", step 2).
// Each table is the ranks' rows in rank order followed by "Total Op Info" rows sorted by their
// keys (per (step, rank, group), per (group, step, rank, transport, packet size)); a rank's
// totals depend only on its own rows, the group mapping and the dtypes of the whole table, which
// the parked frames' column kinds give before any row is read back
// (msprof_analyze/recipes/parked_frames.h). So a first walk over the ranks finds the totals (a
// few rows a rank, stored sorted in runs on disk: recipes/sorted_runs.h) and the kinds of every
// output cell (hence the SQL types), and a second walk appends each rank's rows to the table as it
// reads them back, then the totals merged back from their runs: the same bytes as the table built
// whole.

#include <memory>
#include <string>
#include <vector>

#include "frame/frame.h"
#include "io/diagnostics.h"
#include "msprof_analyze/recipes/recipe.h"
#include "msprof_analyze/recipes/sorted_runs.h"

namespace cs::recipes::communication_time_sum {

// One of the two tables, ready to be written: the ranks' frames it reads, its totals in sorted
// runs, and its columns with the kinds of all their cells.
struct StreamedTable {
  std::string key;                     // the ranks' frame: "time" or "bandwidth"
  std::string table;                   // ClusterCommunicationTime / ClusterCommunicationBandwidth
  std::vector<std::string> names;      // the concatenation's columns (pd.concat's union)
  std::vector<frame::Dtype> dtypes;    // ... and their dtypes
  std::vector<ColumnKinds> columns;    // the table's columns
  std::unique_ptr<SortedRuns> totals;  // its "Total Op Info" rows, read back in table order
};

// The ranks' time and bandwidth frames, held or parked, and what the first walk found.
struct StreamedTables {
  std::vector<RankPartial> ranks;  // the used ranks, in rank order, with only these two frames
  StreamedTable time, bandwidth;
};

// True when the merge should walk the ranks: some used part has its time or bandwidth parked.
bool has_parked_tables(const std::vector<RankPartial>& parts);

// The first walk: takes the two frames out of `parts` (each part keeps its rank and `used`) and
// finds each table's totals (stored in runs of `run_rows` rows in the parked frames' spill file;
// 0: about 4 MiB of cells a run, or CS_TIME_SUM_RUN_ROWS=N rows, for tests) and column kinds.
// `mapping`: the CommunicationGroupMapping frame. Throws std::runtime_error when a parked frame
// cannot be read back.
std::shared_ptr<StreamedTables> prepare_streamed_tables(std::vector<RankPartial>& parts,
                                                        const frame::Frame& mapping,
                                                        size_t run_rows = 0);

// The second walk: writes both tables to the database `db`. False with an error in `diag` when
// the file cannot be written or a parked frame read back.
bool write_streamed_tables(const StreamedTables& tables, const std::string& db,
                           io::Diagnostics& diag);

}  // namespace cs::recipes::communication_time_sum
