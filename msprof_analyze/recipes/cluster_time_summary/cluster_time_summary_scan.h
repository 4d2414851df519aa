#pragma once
// cluster_time_summary's two per-rank queries (communication ops with their group, name and
// step; compute tasks, communication ops and memory copies with their step, ordered by time)
// answered by one plain scan per table plus C++. Each either gives exactly the query's rows in
// its order or returns false, and the caller runs the SQL (which also reports any error). The
// rules are in docs/formats.md ("cluster_time_summary: the scans").

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "frame/frame.h"

#include "db/database.h"

namespace cs::recipes::cluster_time_summary {

class TimeSummaryScan {
 public:
  explicit TimeSummaryScan(const db::Database& db) : db_(db) {}

  // The communication query `sql` (STEP_TIME joined) with its range [lo, hi] on the CANN start:
  // columns rank, groupName, opName, communication_time, step. False: run the SQL.
  bool communication(const std::string& sql, int64_t lo, int64_t hi, frame::Frame& out);
  // The memory query `sql` (STEP_TIME joined) with its range [lo, hi] on the launch time:
  // columns start, end, type, step, ordered by (start, end), ties in the query's order. False:
  // run the SQL.
  bool overlap(const std::string& sql, int64_t lo, int64_t hi, frame::Frame& out);

 private:
  struct Step {
    frame::Cell id;
    bool has_range = false;  // start and end are not NULL
    int64_t start = 0, end = 0;
  };
  bool load_cann();
  bool load_steps();
  // Appends the STEP_TIME ids whose [start, end] holds `t` (in table order), or one NULL.
  void steps_of(int64_t t, std::vector<const frame::Cell*>& ids) const;

  const db::Database& db_;
  std::optional<std::unordered_map<int64_t, std::optional<int64_t>>> cann_;  // id -> startNs
  std::optional<std::vector<Step>> steps_;
};

}  // namespace cs::recipes::cluster_time_summary
