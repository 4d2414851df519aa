#pragma once
// slow_rank's per-rank query (msprof-analyze's CommunicationTimeExport: COMMUNICATION_OP with its
// CANN_API launch in the step range, both STRING_IDS texts by primary key, every RANK_DEVICE_MAP
// row) answered by one plain scan per table plus C++, without SQLite opening the file. It gives
// exactly the query's rows in its order or returns false, and the caller runs the SQL (which also
// reports any error). The rules are in docs/formats.md §9 ("slow_rank: the scan").

#include <cstdint>
#include <string>

#include "db/database.h"
#include "frame/frame.h"

namespace cs::recipes::slow_rank {

// The rows of `sql` (slow_rank's query, its CANN start range [lo, hi] bound) as columns rankId,
// groupName, opName, startNs, communication_time. Used only for SQLite's plan (COMMUNICATION_OP
// scanned in rowid order, CANN_API and both STRING_IDS by primary key, then every
// RANK_DEVICE_MAP row); false (run the SQL) for any other plan, a join key, start or end that
// is neither an integer nor NULL, an end - start that overflows, or a failed read.
bool scan_communication_times(const db::Database& db, const std::string& sql, int64_t lo,
                              int64_t hi, frame::Frame& out);

}  // namespace cs::recipes::slow_rank
