#pragma once
// ep_load_balance's kernel query (the input shapes of the GroupedMatmul kernels whose task lies in
// the step range) answered by one plain scan per table plus C++. The recipe only sums and counts
// these rows, so their multiset is what must match the SQL's, not their order. It gives exactly
// the query's rows or returns false, and the caller runs the SQL (which also reports any error).
// The rules are in docs/formats.md §9 ("ep_load_balance: the scan").

#include <cstdint>

#include "db/database.h"
#include "frame/frame.h"

namespace cs::recipes::ep_load_balance {

// The GroupedMatmul kernels' input shapes (one column, a value per matching COMPUTE_TASK_INFO and
// TASK pair whose start >= lo and end <= hi; NULL where STRING_IDS lacks the id), in no
// particular order. False (run the SQL) when a key, start or end is neither an integer nor NULL,
// or a read fails.
bool scan_grouped_matmul_shapes(const db::Database& db, int64_t lo, int64_t hi, frame::Frame& out);

}  // namespace cs::recipes::ep_load_balance
