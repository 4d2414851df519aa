#pragma once
// p2p_pairing's per-rank query (each COMMUNICATION_TASK_INFO row with its COMMUNICATION_OP, the
// op's CANN_API launch in the step range, four STRING_IDS texts and every RANK_DEVICE_MAP row)
// answered by one plain scan per table plus C++, without SQLite opening the file. It gives
// exactly the query's rows in its order or returns false, and the caller runs the SQL (which
// also reports any error). The rules are in docs/formats.md §9 ("p2p_pairing: the scan").

#include <cstdint>
#include <string>

#include "db/database.h"
#include "frame/frame.h"

namespace cs::recipes::p2p_pairing {

// The rows of `sql` (p2p_pairing's task query, its CANN start range [lo, hi] bound): opName,
// the op's name, startNs, srcRank, dstRank, the task type, the op's and the task's group, values
// as stored. Used only for SQLite's plan (COMMUNICATION_TASK_INFO scanned in rowid order,
// COMMUNICATION_OP, CANN_API and the four STRING_IDS by primary key, then every RANK_DEVICE_MAP
// row); false (run the SQL) for any other plan, a join key or CANN start that is neither an
// integer nor NULL, or a failed read.
bool scan_p2p_tasks(const db::Database& db, const std::string& sql, int64_t lo, int64_t hi,
                    frame::Frame& out);

}  // namespace cs::recipes::p2p_pairing
