#pragma once
// CANN msprof's NPU_OP_MEM table (msprof_{timestamp}.db; also in torch_npu's DB export): one row
// per allocation or release of GE's memory pool, bytes and ns:
//   NPU_OP_MEM (operatorName, addr, type, size, timestamp[Ns], globalTid, totalAllocate,
//               totalReserve, component, deviceId)
// operatorName, type ("allocate" / "release") and component ("GE") are STRING_IDS ids (type in
// ENUM_MEMORY where that table exists); size is positive for both kinds. The pool totals after
// each event give the GE series; an allocation paired with the next release of its address is a
// block (unpaired: never released; a release without an allocation: allocated before the capture,
// left out). Checked against the producer's documentation and exporter only (no real sample).

#include "db/database.h"
#include "db/string_ids.h"
#include "io/diagnostics.h"
#include "memory/memory_builder.h"

namespace cs::memory {

// Pass 1: the "GE" pool totals of every row into `b`. False when the table lacks its columns.
bool npu_op_mem_records(const db::Database& db, RankMemoryBuilder& b, io::Diagnostics& diag);

// Pass 2: the blocks, names from `strings`.
void npu_op_mem_blocks(const db::Database& db, const db::StringIds& strings, RankMemoryBuilder& b,
                       io::Diagnostics& diag);

}  // namespace cs::memory
