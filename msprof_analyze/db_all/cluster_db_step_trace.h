#pragma once
// ClusterStepTraceTime's rows for cluster_analysis.db (msprof_analyze/db_all/cluster_db_all):
// torch_npu's DB export gives one row per step from analysis.db's StepTraceTime, as the main run
// reads it; MindSpore's and CANN msprof's DB exports give one whole-run row per rank (step NULL)
// computed from the rank's profiler database, as msprof-analyze's MsprofStepTraceTimeDBAdapter does
// (msprof_analyze/documents/step_trace_overlap.h, docs/msprof-compat.md).

#include <optional>
#include <string>
#include <vector>

#include "io/diagnostics.h"
#include "load/rank_data.h"
#include "msprof_analyze/documents/cluster_step_trace.h"
#include "msprof_analyze/documents/step_trace_overlap.h"

namespace cs::db_all {

// The rank's database file: its analysis database (analysis.db / communication_analyzer.db)
// when `analysis`, else its profiler database; "" when it has none.
std::string rank_db_file(const load::RankEntry& e, bool analysis);

// True for the layouts whose step trace is the whole-run row: MindSpore and CANN msprof.
bool has_whole_run_step_trace(const load::RankEntry& e);

// Reads one profiler database's compute tasks (COMPUTE_TASK_INFO joined with TASK, msprof-
// analyze's own query and so its row order) and COMMUNICATION_OP (with STRING_IDS for the op
// names) and returns the whole-run totals. nullopt, with one warning naming the file, the table
// and what to do, when the database cannot be opened, lacks one of those tables while it would
// be read, or holds a NULL or non-integer time.
std::optional<documents::StepTraceTotals> read_whole_run_totals(const std::string& profiler_db,
                                                                io::Diagnostics& diag);

// The rows of ClusterStepTraceTime for `ranks` (the DB ranks of the job). `built` (may be null):
// the main run's step trace, used for torch_npu ranks and for the pipeline stages when it was
// read from these ranks' DB exports (its rows are then taken from it); otherwise, or when its
// rows cannot be read back from their spill file, the ranks are read again. Whole-run ranks take
// distributed_args from profiler_metadata.json only, as msprof-analyze does (without it the
// DP/PP/TP columns are written as 0). Problems go to `diag`. `threads` read the ranks.
documents::ClusterStepTrace cluster_db_step_trace(const std::vector<load::RankEntry>& ranks,
                                                  documents::BuiltStepTrace* built, int threads,
                                                  io::Diagnostics& diag);

}  // namespace cs::db_all
