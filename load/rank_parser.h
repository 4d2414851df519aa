#pragma once
// Parses one rank directory into RankData: the JSON and CSV files the chosen analyses need, each
// reader's diagnostics kept, and the rank's status (ok / partial / skipped) with one problem
// sentence per file that was missing or damaged.

#include <cstdint>
#include <optional>
#include <string>

#include "db/database.h"
#include "db/string_ids.h"
#include "load/rank_data.h"
#include "runtime/enum_names.h"

namespace cs::load {

// How kernels are grouped into operator keys (--group-by).
enum class OperatorKey { kType, kName, kNameShapes };
inline constexpr std::array<runtime::EnumName<OperatorKey>, 3> kOperatorKeyNames{
    {{"type", OperatorKey::kType},
     {"name", OperatorKey::kName},
     {"name+shapes", OperatorKey::kNameShapes}}};
// "type" | "name" | "name+shapes" -> key (kOperatorKeyNames); nullopt for anything else.
std::optional<OperatorKey> parse_operator_key(const std::string& s);

struct ParseOptions {
  bool communication = true;  // communication.json
  bool matrix = true;         // communication_matrix.json
  bool step_trace = true;     // step_trace_time.csv
  bool kernels = true;        // kernel_details.csv, else op_statistic.csv
  bool host = false;          // trace_view.json / the profiler DB's host tables (host/)
  OperatorKey group_by = OperatorKey::kType;
  bool memory = false;          // the memory files, when present (memory/): RankData::memory
  std::optional<int64_t> step;  // --step N: keep only step N ("stepN" / Step Id N / Step N)
  // Who parses when it is not the process that discovered the files ("process 3 on host n7"):
  // a file discovery listed but this process cannot see or open is said with it.
  std::string process_note;
};

// Per-rank file names, as the profilers write them.
inline constexpr const char* kCommunicationJson = "communication.json";
inline constexpr const char* kMatrixJson = "communication_matrix.json";
inline constexpr const char* kStepTraceCsv = "step_trace_time.csv";
inline constexpr const char* kKernelDetailsCsv = "kernel_details.csv";
inline constexpr const char* kOpStatisticCsv = "op_statistic.csv";
inline constexpr const char* kMetadataJson = "profiler_metadata.json";

// Reads what `opts` asks for from entry.output_dir (metadata from entry.path). Never throws for
// bad input: problems land in RankData::diagnostics and entry.problems, status is set. A rank
// whose entry.export_type is kDb is read by parse_rank_db.
RankData parse_rank(const RankEntry& entry, const ParseOptions& opts);

// The same from the rank's DB export (analysis.db, ascend_pytorch_profiler_{N}.db or its
// MindSpore/msprof equivalent): the same RankData, so every analysis works on either export. A
// damaged or incomplete database is a problem of this rank only (partial or skipped), never an
// exception.
RankData parse_rank_db(const RankEntry& entry, const ParseOptions& opts);

// With opts.host: the rank's host summary (load/rank_host.cpp) from trace_view.json (text) or
// its profiler database (DB); without a host timeline, the step trace's Free, unattributed.
// Called last by both parsers; a problem is noted for the rank, never fatal.
// `open_db`, when not null, is the database at `open_path`, already open (`open_strings`, when
// not null, its STRING_IDS loaded without a diagnostic): read from them, not again, when it is the
// rank's host file.
void parse_rank_host(RankData& d, const ParseOptions& opts, const db::Database* open_db = nullptr,
                     const std::string& open_path = {},
                     const db::StringIds* open_strings = nullptr);

// The operator key of a kernel under --group-by.
std::string operator_key(const readers::KernelRecord& k, OperatorKey how);

}  // namespace cs::load
