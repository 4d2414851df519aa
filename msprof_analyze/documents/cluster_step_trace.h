#pragma once
// cluster_step_trace_time.csv, as msprof-analyze writes it (StepTraceTimeAnalysis):
//   Step,Type,Index,<per-rank columns without Device_id and Step>[,DP Index,PP Index,TP Index]
// one "rank" row per (rank, per-rank row), then, when pipeline stages can be inferred, one "stage"
// row per (step, stage) holding the column-wise max over the stage's ranks. Python's csv module:
// minimal quoting, "\r\n" line ends, floats as repr, unparsable cells as the int 0.

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "io/csv/csv_writer.h"
#include "io/diagnostics.h"
#include "io/py_format.h"
#include "load/rank_data.h"
#include "msprof_analyze/documents/cluster_step_trace_rows.h"
#include "msprof_analyze/documents/communication_groups.h"
#include "msprof_analyze/documents/parked_step_trace.h"
#include "msprof_analyze/documents/py_int_set.h"

namespace cs::documents {

// Pipeline stages (StageInfoAnalysis): p2p groups whose pg_name starts with "pp" (any case) are
// joined into unions (sorted by smallest rank, one greedy pass); a collective group is used only
// if it has at most one rank in every union; collective groups sharing ranks are joined; each
// joined set is a stage. Stages come sorted by smallest rank; each set iterates like Python's.
// Empty when there is no "pp" p2p group. Example: pp groups {0,2},{1,3} and tp groups {0,1},{2,3}
// give stages {0,1} and {2,3}.
std::vector<PyIntSet> infer_stages(const CommGroups& groups);

// (DP index, PP index, TP index) of each rank 0..world_size-1 by msprof-analyze's Megatron
// partition (tensor fastest: tp = r % tp, dp = r / tp % dp, pp = r / (tp*dp) when cp = 1); entries
// it leaves unset are nullopt. nullopt overall (with *why set) when the sizes are inconsistent
// (world_size != tp*pp*dp, dp % ep != 0, ...), in which case no index columns are written.
std::optional<std::vector<std::optional<std::array<int, 3>>>> megatron_index_map(
    const std::map<std::string, int64_t>& distributed_args, std::string* why = nullptr);

// The step trace as one run built it, for another output of the same command
// (cluster_analysis.db of -m all) that would otherwise read every rank again: the rows, and what
// they were read from so that output can tell they are the rows it would build. The rows wait
// in a spill file of their own until that output takes them (ParkedStepTrace).
struct BuiltStepTrace {
  ParkedStepTrace trace;
  std::vector<std::string> rank_dirs;  // the rank directories read, by rank
  bool from_db_exports = false;        // every rank was read from its DB export
  bool one_step = false;               // --step N: only step N was read
};

// Builds the file's content from ranks (sorted by rank) and the communication groups.
// `ranks_filtered` (--rank-list): fewer ranks than world_size is what the user asked for, so it
// is not reported as missing files.
ClusterStepTrace build_cluster_step_trace(const std::vector<load::RankData>& ranks,
                                          const CommGroups& groups, io::Diagnostics& diag,
                                          bool ranks_filtered = false);
// Same, with the pipeline stages already inferred (infer_stages), e.g. from another run's
// ClusterStepTrace::stages.
ClusterStepTrace build_cluster_step_trace_staged(const std::vector<load::RankData>& ranks,
                                                 const std::vector<PyIntSet>& stages,
                                                 io::Diagnostics& diag,
                                                 bool ranks_filtered = false);

// The CSV text, exactly as Python's csv.writer prints it ("\r\n" line ends).
std::string format_cluster_step_trace(const ClusterStepTrace& t);
// Appends row r's CSV line (with its "\r\n") to out.
void append_cluster_step_trace_row(std::string& out, const ClusterStepTrace& t, size_t r);

// Writes cluster_step_trace_time.csv; nothing written (true returned) when there is no row.
bool write_cluster_step_trace_csv(const std::string& path, const std::vector<load::RankData>& ranks,
                                  const CommGroups& groups, io::Diagnostics& diag,
                                  bool ranks_filtered = false);
// Same, from a document already built (build_cluster_step_trace); the text is streamed to the
// file a block of lines at a time, never held whole.
bool write_cluster_step_trace_csv(const std::string& path, const ClusterStepTrace& t,
                                  io::Diagnostics& diag);

// A CSV field as Python's csv module (QUOTE_MINIMAL) writes it (io/csv/csv_writer.h).
using io::append_csv_field;

}  // namespace cs::documents
