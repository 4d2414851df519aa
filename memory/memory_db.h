#pragma once
// torch_npu's DB export of one rank's memory (ascend_pytorch_profiler_{N}.db), streamed into a
// RankMemory exactly as the text files are (memory/memory_text.h), so both exports give the same
// figures:
//   MEMORY_RECORD (component, timestamp, totalAllocated, totalReserved)   names in STRING_IDS
//   NPU_MEM (type, ddr, hbm, timestampNs): type "app" -> the APP component, hbm + ddr
//   NPU_MODULE_MEM (moduleId, timestampNs, totalReserved)                  names in ENUM_MODULE
//   OP_MEMORY (name, size, allocationTime, releaseTime)                    names in STRING_IDS
// CANN msprof's msprof_{timestamp}.db has no MEMORY_RECORD: its NPU_OP_MEM gives the GE series and
// the blocks (memory/memory_npu_op_mem.h).
// Bytes and ns throughout. NPU_INFO's chip name gives the device's capacity where it is known.

#include <optional>
#include <string_view>
#include <vector>

#include "db/database.h"
#include "io/diagnostics.h"
#include "memory/rank_memory.h"

namespace cs::memory {

// nullopt when the database has no MEMORY_RECORD (nor NPU_OP_MEM) with allocations (not profiled
// with profile_memory=True) or it cannot be read (an error in `diag`).
std::optional<RankMemory> read_memory_db(const db::Database& db,
                                         const std::vector<StepRange>& steps,
                                         io::Diagnostics& diag);

// HBM capacity (bytes) of an Ascend chip named as NPU_INFO names it ("Ascend910B3"); -1 when
// the name does not say it (a plain "Ascend910B" covers parts of 32 and 64 GB).
int64_t chip_capacity(std::string_view chip);

}  // namespace cs::memory
