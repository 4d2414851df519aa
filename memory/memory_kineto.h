#pragma once
// PyTorch profiler (Kineto) traces with profile_memory=True: "[memory]" instant events
//   {"ph": "i", "name": "[memory]", "ts": 1414456661820.89, "tid": 5617,
//    "args": {"Total Reserved": 245366784, "Total Allocated": 216081408, "Bytes": 1204224,
//             "Addr": 136093868752896, "Device Id": 0, "Device Type": 1}}
// one per allocation (Bytes > 0) or release (Bytes < 0, the same Addr), read into a RankMemory as
// the Ascend files are (memory/rank_memory.h): the series is the device's ("CUDA" for Device
// Type 1, "device" for other accelerators; the host's, Device Type 0, is left out); a block is an
// allocation paired with the release of its address, its operator the innermost cpu_op around the
// allocation on the same thread; steps from the ProfilerStep#N annotations; the capacity from
// deviceProperties' totalGlobalMem.
// Also: read_profile_memory, one profile of `compare` (a Kineto trace or an Ascend rank directory).

#include <optional>
#include <string>

#include "io/diagnostics.h"
#include "memory/rank_memory.h"

namespace cs::memory {

// nullopt when the trace has no device "[memory]" event or is not a trace (an error in `diag`).
std::optional<RankMemory> read_memory_kineto(const std::string& path, io::Diagnostics& diag);

// The memory of one profile given to `compare`: a Kineto trace file (.json / .json.gz), or an
// Ascend rank directory (its ASCEND_PROFILER_OUTPUT/ text files, else its
// ascend_pytorch_profiler_*.db). nullopt when it holds no memory data.
std::optional<RankMemory> read_profile_memory(const std::string& path, io::Diagnostics& diag);

}  // namespace cs::memory
