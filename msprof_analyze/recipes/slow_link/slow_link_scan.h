#pragma once
// slow_link's per-rank query (msprof-analyze's SlowLinkExport: each COMMUNICATION_OP row with its
// group, name and type texts, its data type's name and the bytes it moves) answered by one plain
// scan per table plus C++, without SQLite opening the file. It gives exactly the query's rows in
// its order or returns false, and the caller runs the SQL (which also reports any error). The
// rules are in docs/formats.md §9 ("slow_link: the scan").

#include <string>

#include "db/database.h"
#include "frame/frame.h"

namespace cs::recipes::slow_link {

// The rows of `sql` (slow_link's query) as columns groupName, communicationTime, opName, opType,
// dataType, dataSize. Used only for SQLite's plan (COMMUNICATION_OP scanned in rowid order, the
// three STRING_IDS and ENUM_HCCL_DATA_TYPE by primary key); false (run the SQL) for any other
// plan, a join key, start or end that is neither an integer nor NULL, a count that is text or a
// blob, an arithmetic overflow (SQLite would go to floating point), or a failed read.
bool scan_slow_links(const db::Database& db, const std::string& sql, frame::Frame& out);

}  // namespace cs::recipes::slow_link
