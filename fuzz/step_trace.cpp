// Harness: step_trace_time.csv, through the streaming reader rank_parser calls.
#include <cmath>

#include "fuzz/harnesses.h"
#include "fuzz/temp_input.h"
#include "readers/step_trace.h"

namespace cs::fuzz {

int step_trace(const uint8_t* data, size_t size) {
  const std::string& path = write_temp_input("step_trace_time.csv", data, size);
  readers::StepTraceFile file;
  io::Diagnostics diag;
  if (readers::read_step_trace_csv(path, file, diag)) {
    // Every row has one value per column: the analyses index them by column.
    for (const auto& row : file.rows)
      if (row.values.size() != file.columns.size()) __builtin_trap();
    for (const auto& row : file.rows) (void)std::isnan(file.get(row, "Computing"));
  }
  return 0;
}

}  // namespace cs::fuzz
