#include "fuzz/harnesses.h"

namespace cs::fuzz {

const std::vector<Harness>& harnesses() {
  // max_len: a little above the largest seed; the readers' logic repeats past a few records.
  static const std::vector<Harness> all = {
      {"communication", communication, 16 << 10},
      {"communication_matrix", communication_matrix, 16 << 10},
      {"step_trace", step_trace, 8 << 10},
      {"kernel_details", kernel_details, 16 << 10},
      {"profiler_info", profiler_info, 4 << 10},
      {"kineto_trace", kineto_trace, 32 << 10},
      {"trace_view", trace_view, 32 << 10},
      {"analysis_db", analysis_db, 64 << 10},
      {"profiler_db", profiler_db, 128 << 10},
      {"input_kind", input_kind, 8 << 10},
      {"megengine", megengine, 16 << 10},
      {"sqlite_appender", sqlite_appender, 8 << 10},
      {"memory", memory, 20 << 10},
  };
  return all;
}

const Harness* find_harness(std::string_view name) {
  for (const auto& h : harnesses())
    if (name == h.name) return &h;
  return nullptr;
}

}  // namespace cs::fuzz
