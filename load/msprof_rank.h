#pragma once
// Which rank a CANN msprof PROF_ directory holds when it has no profiler_info_{N}.json, as
// msprof-analyze decides it: the rank_id of the first info.json.{N} in a device directory
// (PROF_*/device_{N}/info.json.{N}, readers/msprof_info.h); when no PROF_ directory of the job has
// one, the devices numbered 0, 1, ... in (hostUid, device id) order.

#include <string>
#include <string_view>
#include <vector>

#include "io/diagnostics.h"
#include "load/rank_data.h"

namespace cs::load {

// CANN msprof's profiler database name, msprof_{14 digits}.db (the only one msprof-analyze reads;
// of several, the newest by name).
bool is_msprof_db_name(std::string_view name);

// Sets e.rank from the info.json's rank_id, or e.msprof_device when it has none; adds the file to
// e.files. A file that cannot be read is one of e.problems.
void read_msprof_rank(RankEntry& e);

// Adds a PROF_ text directory's files from mindstudio_profiler_output/ to e.files: the timeline
// files msprof-analyze reads for its step trace (msprof_{14 digits}.json,
// readers/msprof_step_trace.h) and the newest op_statistic_{digits}.csv (operator statistics).
void add_msprof_text_files(RankEntry& e);

// The op_statistic_{digits}.csv of e.files (relative to e.path), "" when there is none.
std::string msprof_op_statistic_of(const RankEntry& e);

// The timeline files of e.files (paths relative to e.path), in reading order.
std::vector<std::string> msprof_timeline_of(const RankEntry& e);

// Numbers the PROF_ entries that have a device but no rank (see the file comment), or marks them
// skipped when other PROF_ entries have ranks; one warning in `diag` says it.
void number_msprof_ranks(std::vector<RankEntry>& found, const std::string& dir,
                         io::Diagnostics& diag);

}  // namespace cs::load
