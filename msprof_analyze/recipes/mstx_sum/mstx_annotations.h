#pragma once
// One rank's mstx annotations as msprof-analyze's mstx_sum mapper reads them from
// ascend_pytorch_profiler_N.db:
//   - marks (MSTX_EVENTS eventType 3, marker_ex): "<msg>_start" and "<msg>_stop" on one thread
//     pair up, a stop taking the latest open start of its message; an annotation "<msg>" with the
//     CANN (host) duration between them. msprof-analyze 8399c1cd reads the marks' framework and
//     device timestamps as 0 (its table check is handed a path instead of a cursor, so it never
//     joins PYTORCH_API or TASK): their framework and device durations are 0, as it writes them.
//   - ranges (eventType 2) tied to a device task (connectionId other than 4294967295): host span
//     and the joined TASK's device span; a range inside another is named "outer::inner".
// Each annotation belongs to the STEP_TIME step whose [start, end] holds its host start (0 when
// none or no STEP_TIME); names repeated within a step get "_0", "_1", ... in annotation order.

#include <cstdint>
#include <string>
#include <vector>

#include "io/diagnostics.h"
#include "msprof_analyze/recipes/rank_db.h"

namespace cs::recipes::mstx_sum {

struct MstxAnnotation {
  std::string name;
  double framework_ns = 0, cann_ns = 0, device_ns = 0;  // NaN where a device time is missing
  int64_t step_id = 0;
};

// Reads the annotations of the database `db` in msprof-analyze's order (marks as their stops
// come, then ranges by host start). False with a diagnostic when a query fails.
bool read_mstx_annotations(recipes::RankDb& db, std::vector<MstxAnnotation>& out,
                           io::Diagnostics& diag);

// The range query (msprof-analyze's MstxRangeExport; with_task: TASK joined), its start range as
// two parameters; for tests.
std::string mstx_range_sql(bool with_task);
// The mark query (its start range as two parameters) and the step query; for tests.
const char* mstx_mark_sql();
const char* mstx_step_sql();

}  // namespace cs::recipes::mstx_sum
