#pragma once
// Graph mode's static graph memory: static_op_mem.csv (torch_npu's ASCEND_PROFILER_OUTPUT/, CANN's
// static_op_mem_*.csv), one row per operator of a compiled static graph:
//   Device_id, Op Name, Model Name, Graph ID, Node Index Start, Node Index End, Size(KB)
// The node indices are logical times (the order of the graph's nodes), not clock times; an end of
// 4294967295 means "until the graph's lifetime ends"; a last row per graph named TOTAL gives the
// graph's total memory. Checked against the producer's documentation only (no real sample).

#include <cstdint>
#include <string>

#include "io/diagnostics.h"
#include "memory/rank_memory.h"

namespace cs::memory {

inline constexpr const char* kStaticOpMemCsv = "static_op_mem.csv";

// Reads `path` into `m.static_graph_peak` (per graph (Model Name, Graph ID) the largest sum of the
// sizes of the blocks live at one node index, a block live from its start to its end index
// inclusive; summed over graphs, which hold their memory side by side) and `m.static_graph_total`
// (the TOTAL rows summed; the sizes summed when a graph has none). False (m unchanged) when the
// file is absent or lacks the columns (said in `diag`); a bad row is skipped and said once.
bool read_static_op_mem(const std::string& path, RankMemory& m, io::Diagnostics& diag,
                        uint64_t* files_read = nullptr, uint64_t* bytes_read = nullptr);

}  // namespace cs::memory
