#pragma once
// mstx_sum's range query (MSTX_EVENTS ranges tied to a device task: LEFT JOIN TASK on
// connectionId, for which SQLite builds an automatic index over TASK on every rank, then the
// message through STRING_IDS, ordered by start) answered by plain scans plus C++. It gives exactly
// the query's rows in its order or returns false, and the caller runs the SQL (which also reports
// any error). The rules are in docs/formats.md ("mstx_sum: the range scan").

#include <cstdint>
#include <string>

#include "frame/frame.h"

#include "db/database.h"

namespace cs::recipes::mstx_sum {

// The rows of `sql` (the range query with TASK joined, its start range [lo, hi] bound) as
// columns msg, cann_start_ts, cann_end_ts, device_start_ts, device_end_ts, tid. Used only for the
// SQLite plan it reproduces; false (run the SQL) for any other plan, an MSTX_EVENTS eventType,
// startNs, connectionId or message, or a TASK startNs, endNs or connectionId, that is neither an
// integer nor NULL, or a failed read.
bool scan_mstx_ranges(const db::Database& db, const std::string& sql, int64_t lo, int64_t hi,
                      frame::Frame& out);

}  // namespace cs::recipes::mstx_sum
