#pragma once
// hccl_sum's per-rank query (COMMUNICATION_OP in rowid order over a start range, three STRING_IDS
// found by primary key) answered by one plain scan per table plus C++, without SQLite's parse
// of the file's schema and its virtual machine. It gives exactly the query's rows in its order or
// returns false, and the caller runs the SQL (which also reports any error).

#include <cstdint>
#include <string>

#include "frame/frame.h"

#include "db/database.h"

namespace cs::recipes::hccl_sum {

// The rows of `sql` (hccl_sum's query, its start range [lo, hi] bound) as columns OpName,
// OpType, Duration, GroupName. Used only for the SQLite plan it reproduces (a scan of
// COMMUNICATION_OP, STRING_IDS searched by its INTEGER PRIMARY KEY); false (run the SQL) for any
// other plan, a start, end or string id that is neither an integer nor NULL, a duration of
// 2^52 ns or more, or a failed read.
bool scan_hccl_ops(const db::Database& db, const std::string& sql, int64_t lo, int64_t hi,
                   frame::Frame& out);

}  // namespace cs::recipes::hccl_sum
