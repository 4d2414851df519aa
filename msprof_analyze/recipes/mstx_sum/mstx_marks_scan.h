#pragma once
// mstx_sum's two other per-rank queries answered by plain scans plus C++, so a rank's file is
// never parsed by SQLite: the steps (STEP_TIME ordered by start) and the marks (MSTX_EVENTS of
// type 3 over a start range, their message through STRING_IDS, ordered by start). Each gives
// exactly the query's rows in its order or returns false, and the caller runs the SQL (which also
// reports any error). The rules are in docs/formats.md ("mstx_sum: the mark and step scans").

#include <cstdint>
#include <string>

#include "frame/frame.h"

#include "db/database.h"

namespace cs::recipes::mstx_sum {

// The rows of `sql` (SELECT id, startNs, endNs FROM STEP_TIME ORDER BY startNs) as columns id,
// startNs, endNs, for SQLite's plan (a scan, then a sort) only; false (run the SQL) for another
// plan, a startNs that is neither an integer nor NULL, or a failed read.
bool scan_step_time(const db::Database& db, const std::string& sql, frame::Frame& out);

// The rows of `sql` (the mark query, its start range [lo, hi] bound) as columns msg, cann_ts, tid,
// for SQLite's plan (MSTX_EVENTS scanned, the message by STRING_IDS' primary key, then a sort by
// start) only; false (run the SQL) for another plan, an eventType, startNs or message that is
// neither an integer nor NULL, or a failed read.
bool scan_mstx_marks(const db::Database& db, const std::string& sql, int64_t lo, int64_t hi,
                     frame::Frame& out);

}  // namespace cs::recipes::mstx_sum
