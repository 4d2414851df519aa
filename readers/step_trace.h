#pragma once
// step_trace_time.csv (per rank): Device_id,Step,Computing,Communication(Not Overlapped),
// Overlapped,Communication,Free,Stage,Bubble,Communication(Not Overlapped and Exclude Receive)
// [,Preparing]. Microseconds. See formats.md §4.

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "io/diagnostics.h"

namespace cs::readers {

// The value columns the profilers write, in their order (Preparing only in newer files).
inline constexpr std::array<std::string_view, 9> kStepTraceColumns = {
    "Computing",  "Communication(Not Overlapped)",
    "Overlapped", "Communication",
    "Free",       "Stage",
    "Bubble",     "Communication(Not Overlapped and Exclude Receive)",
    "Preparing"};

// True for a name in kStepTraceColumns: is_step_trace_column("Free") == true.
bool is_step_trace_column(std::string_view name);

struct StepTraceRow {
  std::string step;            // as written ("" when the producer left it empty)
  std::vector<double> values;  // one per StepTraceFile::columns; NaN when the cell was N/A or empty
  bool no_step = false;        // a whole-run row: the step is None (msprof-analyze's DB adapters)
};

struct StepTraceFile {
  // Value column names in file order, without Device_id and Step (e.g. "Computing", ...,
  // "Preparing"). msprof-analyze's cluster header is "Step,Type,Index," + these.
  std::vector<std::string> columns;
  std::vector<StepTraceRow> rows;

  // Index of a value column by name, -1 when absent.
  int column(const std::string& name) const;
  // Value of a named column in a row, NaN when the column is absent.
  double get(const StepTraceRow& row, const std::string& name) const;
};

// Reads the file (parse_* reads text already in memory; `source` names it in diagnostics).
// Returns false (with an error) only when the file cannot be used at all (no known column in the
// header); bad rows and cells become diagnostics naming file and line, and are skipped; rows
// repeating an earlier row exactly are dropped with one warning (count, first line).
bool read_step_trace_csv(const std::string& path, StepTraceFile& out, io::Diagnostics& diag);
bool parse_step_trace_csv(std::string_view text, const std::string& source, StepTraceFile& out,
                          io::Diagnostics& diag);

}  // namespace cs::readers
