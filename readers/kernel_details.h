#pragma once
// kernel_details.csv (per rank): one row per device task, streamed row by row. op_statistic.csv:
// per op type and core type aggregates. See formats.md §4.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "io/diagnostics.h"

namespace cs::readers {

// One kernel row. Views are valid only during the callback. Numbers are NaN when the cell is
// absent, empty or N/A; step_id is -1 without step marks.
struct KernelRecord {
  int64_t step_id = -1;
  std::string_view name;
  std::string_view type;
  std::string_view accelerator_core;
  std::string_view input_shapes;  // quotes removed: 81920,4096;8192,512
  std::string_view input_dtypes;
  std::string_view output_shapes;
  std::string_view input_formats;   // "NC1HWC0;FRACTAL_Z;NCHW" ("" when absent)
  std::string_view output_formats;  // "NC1HWC0"
  double start_us = 0;
  double duration_us = 0;
  double wait_us = 0;
  double aicore_time_us = 0;  // aicore_time(us), NaN when absent
  double aiv_time_us = 0;     // aiv_time(us), NaN when absent
  int64_t line = 0;
};

// Streams kernel_details.csv, calling `on_row` for every valid row. Rows with an unparseable
// Duration(us) are reported and skipped. Returns false when the file cannot be used at all
// (missing, empty, binary, no Name or Duration(us) column).
// Reads the file (parse_* reads text already in memory; `source` names it in diagnostics).
// Returns false (with an error) only when the file cannot be used at all; bad rows and cells
// become diagnostics naming file and line, and are skipped.
bool read_kernel_details_csv(const std::string& path,
                             const std::function<void(const KernelRecord&)>& on_row,
                             io::Diagnostics& diag);
bool parse_kernel_details_csv(std::string_view text, const std::string& source,
                              const std::function<void(const KernelRecord&)>& on_row,
                              io::Diagnostics& diag);

struct OpStatisticRow {
  std::string op_type;    // "OP Type"
  std::string core_type;  // "Core Type"
  double count = 0;       // "Count" (NaN when the cell is missing or N/A, like the others)
  double total_us = 0;    // "Total Time(us)"
  double min_us = 0;      // "Min Time(us)"
  double avg_us = 0;      // "Avg Time(us)"
  double max_us = 0;      // "Max Time(us)"
  double ratio_pct = 0;   // "Ratio(%)"
};

// Reads the file (parse_* reads text already in memory; `source` names it in diagnostics).
// Returns false (with an error) only when the file cannot be used at all; bad rows and cells
// become diagnostics naming file and line, and are skipped.
bool read_op_statistic_csv(const std::string& path, std::vector<OpStatisticRow>& out,
                           io::Diagnostics& diag);
bool parse_op_statistic_csv(std::string_view text, const std::string& source,
                            std::vector<OpStatisticRow>& out, io::Diagnostics& diag);

}  // namespace cs::readers
