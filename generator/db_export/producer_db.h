#pragma once
// The DB export of MindSpore and of CANN's msprof command line (`generate --framework
// mindspore|msprof --export-type db`), the same simulated job as torch_npu's DB export, in the
// layout and with the tables those producers write (docs/generated_db.md):
// - CANN msprof: PROF_{n}_{timestamp}_{suffix}/msprof_{14 digits}.db, analyze/
//   communication_analyzer.db and device_{id}/info.json.{id} (the rank: rank_id);
// - MindSpore: *_ascend_ms/ASCEND_PROFILER_OUTPUT/ascend_mindspore_profiler_{rank}.db (msprof's
//   database, moved and renamed by MindSpore) and communication_analyzer.db (msprof's analyze
//   output, copied), beside profiler_info_{rank}.json, profiler_metadata.json and msprof's
//   PROF_* directory (its device_{id}/info.json.{id}).
// msprof's database has no torch_npu table (PYTORCH_API, CONNECTION_IDS, STEP_TIME, MEMORY_RECORD,
// OP_MEMORY) and its META_DATA no distributed_args or parallel_group_info;
// communication_analyzer.db has no StepTraceTime.

#include <functional>
#include <string>

#include "generator/job/writers.h"

namespace cs::generator {

// Writes a file's text (counted in the summary); false with a diagnostic on failure.
using PutText = std::function<bool(const std::string& path, const std::string& text)>;
// Runs a database writer on `path` (counted in the summary).
using PutDb = std::function<bool(const std::string& path,
                                 const std::function<bool(const std::string&)>& write)>;

// The tables msprof's database does not have (torch_npu adds them to its own).
inline constexpr const char* kTorchNpuOnlyTables[] = {"PYTORCH_API", "CONNECTION_IDS", "STEP_TIME",
                                                      "MEMORY_RECORD", "OP_MEMORY"};

// msprof_{14 digits}.db of one rank (also MindSpore's ascend_mindspore_profiler_{rank}.db): the
// torch_npu database's msprof tables with their rows.
bool write_msprof_profiler_db(const std::string& path, const WriteContext& ctx, int rank,
                              const RankTimeline& tl, io::Diagnostics& diag);
// communication_analyzer.db: CommAnalyzerTime and CommAnalyzerBandwidth of `docs` (one row per
// op instance, no step or type column) and CommAnalyzerMatrix, one row per link of each op
// instance of `tl`.
bool write_communication_analyzer_db(const std::string& path, const WriteContext& ctx,
                                     const RankTimeline& tl, const RankDocuments& docs,
                                     io::Diagnostics& diag);

// MindSpore's two databases in `dir`/ASCEND_PROFILER_OUTPUT, and the PROF_ directory MindSpore
// keeps in `dir` (device_{id}/info.json.{id}).
bool write_mindspore_db_files(const std::string& dir, const WriteContext& ctx, int rank,
                              const RankTimeline& tl, const RankDocuments& docs, const PutText& put,
                              const PutDb& put_db, io::Diagnostics& diag);
// msprof's DB files in the PROF_ directory `dir`; `with_info` writes device_{id}/info.json.{id}
// too (the text export writes it otherwise).
bool write_msprof_db_files(const std::string& dir, const WriteContext& ctx, int rank,
                           const RankTimeline& tl, bool with_info, const PutText& put,
                           const PutDb& put_db, io::Diagnostics& diag);

}  // namespace cs::generator
