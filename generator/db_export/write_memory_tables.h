#pragma once
// A rank's simulated memory (generator/job/memory_model.h) as torch_npu's DB export holds it.

#include "generator/db_export/sqlite_writer.h"
#include "generator/job/memory_model.h"

namespace cs::generator {

// OP_MEMORY, MEMORY_RECORD, NPU_MEM, NPU_MODULE_MEM and ENUM_MODULE (names through `ids`).
void write_memory_tables(SqliteFile& db, StringIdTable& ids, const MemoryTrace& m);

}  // namespace cs::generator
