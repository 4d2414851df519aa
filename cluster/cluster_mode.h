#pragma once
// The choices of `clusterscope cluster` as enums, each with its one string <-> enum table
// (runtime/enum_names.h): the analysis mode (-m) and the output formats (--format). The command
// line parses through these tables and errors list their names; the pipeline switches on enums.

#include <array>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "load/rank_parser.h"
#include "runtime/enum_names.h"

namespace cs::cluster {

// -m: which analyses run (msprof-analyze's recipes are another path:
// msprof_analyze/recipes/recipe_run.h).
enum class Mode {
  kAll,
  kCommunicationTime,
  kCommunicationMatrix,
  kStepTrace,
  kOperators,
  kDiagnosis
};
inline constexpr std::array<runtime::EnumName<Mode>, 6> kModeNames{
    {{"all", Mode::kAll},
     {"communication_time", Mode::kCommunicationTime},
     {"communication_matrix", Mode::kCommunicationMatrix},
     {"step_trace", Mode::kStepTrace},
     {"operators", Mode::kOperators},
     {"diagnosis", Mode::kDiagnosis}}};

// --format: kAll stands for the four others.
enum class OutputFormat { kAll, kJson, kCsv, kHdf5, kHtml };
inline constexpr std::array<runtime::EnumName<OutputFormat>, 5> kOutputFormatNames{
    {{"all", OutputFormat::kAll},
     {"json", OutputFormat::kJson},
     {"csv", OutputFormat::kCsv},
     {"hdf5", OutputFormat::kHdf5},
     {"html", OutputFormat::kHtml}}};
using OutputFormats = std::set<OutputFormat>;  // never holds kAll

// --op-tables: where clusterscope's per-op tables go (the two whose rows grow with ranks x op
// instances: communication_ops, communication_matrix; is_op_table). kHdf5: only as datasets of
// cluster_analysis.h5 (the default when the HDF5 file is written); kCsv / kCsvGz: also as
// <name>.csv / <name>.csv.gz (kCsv is the default without --format hdf5). interface.md.
enum class OpTables { kHdf5, kCsv, kCsvGz };
inline constexpr std::array<runtime::EnumName<OpTables>, 3> kOpTablesNames{
    {{"hdf5", OpTables::kHdf5}, {"csv", OpTables::kCsv}, {"csv.gz", OpTables::kCsvGz}}};

// True for the tables --op-tables places ("communication_ops", "communication_matrix").
bool is_op_table(std::string_view table_name);

// --data-type (load/rank_data.h): which export to read when a rank has both.
inline constexpr std::array<runtime::EnumName<load::DataType>, 3> kDataTypeNames{
    {{"auto", load::DataType::kAuto},
     {"text", load::DataType::kText},
     {"db", load::DataType::kDb}}};

// The mode's name as -m spells it ("communication_time").
std::string_view mode_name(Mode mode);

// "json,csv" or "all" -> the formats (all expanded). False and `error` ("unknown format 'cvs' —
// valid: all, json, csv, hdf5, html", or "no format given") on a bad list.
bool parse_output_formats(std::string_view text, OutputFormats& out, std::string& error);

// Which per-rank files a mode needs.
load::ParseOptions parse_options_for_mode(Mode mode, load::ParseOptions base);

}  // namespace cs::cluster
