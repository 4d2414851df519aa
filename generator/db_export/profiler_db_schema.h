#pragma once
// The tables of ascend_pytorch_profiler_{rank}.db the generator writes: their CREATE statements
// (columns and types as torch_npu declares them) and the fixed ENUM_* contents.

#include <cstdint>

#include "generator/db_export/sqlite_writer.h"

namespace cs::generator {

// Creates every table (empty) and its indexes.
void create_profiler_tables(SqliteFile& db);
// Fills ENUM_API_TYPE, ENUM_HCCL_DATA_TYPE, ENUM_HCCL_LINK_TYPE, ENUM_HCCL_TRANSPORT_TYPE,
// ENUM_HCCL_RDMA_TYPE and ENUM_MSTX_EVENT_TYPE.
void write_enum_tables(SqliteFile& db);

// ENUM_API_TYPE ids used by the generator.
inline constexpr int kApiTypeHccl = 5500;
inline constexpr int kApiTypeNode = 10000;
inline constexpr int kApiTypeAcl = 20000;
inline constexpr int kApiTypeOp = 50001;
inline constexpr int kApiTypeMstx = 50004;
// ENUM_HCCL_TRANSPORT_TYPE, ENUM_HCCL_LINK_TYPE, ENUM_HCCL_RDMA_TYPE, ENUM_HCCL_DATA_TYPE and
// ENUM_MSTX_EVENT_TYPE ids.
inline constexpr int kTransportSdma = 0, kTransportRdma = 1, kTransportLocal = 2;
inline constexpr int kLinkOnChip = 0, kLinkHccs = 1, kLinkRoce = 3;
inline constexpr int kRdmaSendPayload = 1, kRdmaInvalid = 65535;
inline constexpr int kDataTypeBf16 = 11;
inline constexpr int kMstxStartEnd = 2, kMstxMarkerEx = 3;
// "no value" in the profiler's integer columns (contextId, modelId, category, ...).
inline constexpr int64_t kNoValue = 4294967295;

}  // namespace cs::generator
