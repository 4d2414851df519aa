#pragma once
// torch_npu's (and MindSpore's) text memory files of one rank, streamed into a RankMemory:
//   memory_record.csv   Component, Timestamp(us), Total Allocated(MB), Total Reserved(MB), ...
//   npu_module_mem.csv  Component, Timestamp(us), Total Reserved(MB), Device
//   operator_memory.csv Name, Size(KB), Allocation Time(us), Release Time(us), ...
// Quirks handled: the unit is read from each header ("(KB)", "(MB)", "(GB)", "(B)"); timestamps
// end in a TAB and carry ns digits (kept exactly as integer ns); APP rows have no allocated value;
// `cann::` rows have no Active or Stream values; a block never released has no Release Time.
// CANN's PROF_ text layout (mindstudio_profiler_output/memory_record_*.csv, operator_memory_*.csv,
// npu_module_mem_*.csv, static_op_mem_*.csv) is read too: units KB, operator_memory with
// Duration(us) instead of Release Time(us), releases of blocks allocated before the capture
// (negative Size, empty Allocation Time) left out.
// A bad cell skips its row, counted and said once per file (file, line, what to do).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "io/diagnostics.h"
#include "memory/rank_memory.h"

namespace cs::memory {

inline constexpr const char* kMemoryRecordCsv = "memory_record.csv";
inline constexpr const char* kOperatorMemoryCsv = "operator_memory.csv";
inline constexpr const char* kModuleMemCsv = "npu_module_mem.csv";

// Reads the memory files found in `dir` (ASCEND_PROFILER_OUTPUT/). nullopt when memory_record.csv
// is absent or holds no allocations (the rank was not profiled with profile_memory=True); the
// other two files are optional. `files_read` / `bytes_read` count what was read.
std::optional<RankMemory> read_memory_text(const std::string& dir,
                                           const std::vector<StepRange>& steps,
                                           io::Diagnostics& diag, uint64_t* files_read = nullptr,
                                           uint64_t* bytes_read = nullptr);

// The memory file `stem` of `dir`: {stem}.csv (torch_npu), else the newest {stem}_{digits}.csv
// by name (CANN's PROF_*/mindstudio_profiler_output/); {stem}.csv when neither exists.
std::string memory_file(const std::string& dir, std::string_view stem);

// "1736408883694624.810\t" (us, up to 3 decimals) -> ns exactly; false when not a timestamp.
bool parse_us_timestamp(std::string_view cell, int64_t& ns);

// Bytes per unit of a header such as "Total Allocated(MB)" / "Size(KB)"; 0 when it names none.
double header_unit_bytes(std::string_view header);

}  // namespace cs::memory

namespace cs::memory {

// Widens step `step`'s range in `ranges` to cover a kernel [start_us, start_us + duration_us]:
// the text export's step ranges, from kernel_details.csv's Step Id and times.
void widen_step(std::map<int64_t, StepRange>& ranges, int64_t step, double start_us,
                double duration_us);

}  // namespace cs::memory
