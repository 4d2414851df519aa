#pragma once
// The per-rank reads of the communication_bottleneck recipe: msprof-analyze's queries
// (prof_exports/communication_bottleneck_export.py) run by SQLite on one rank's
// ascend_pytorch_profiler_{N}.db, with the parameter types msprof-analyze binds (a Python int, a
// str, or a numpy int64, which Python's sqlite3 binds as an 8-byte little-endian BLOB: compared
// with an INTEGER column it is larger than every number, so `endNs <= ?` then holds for every
// row; docs/msprof-compat.md, "communication_bottleneck").

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cs::recipes::communication_bottleneck {

// A parameter as Python binds it.
struct SqlParam {
  enum class Kind { kInt, kText, kNumpyInt } kind = Kind::kInt;
  int64_t value = 0;
  static SqlParam integer(int64_t v) { return {Kind::kInt, v}; }
  static SqlParam text(int64_t v) { return {Kind::kText, v}; }       // str(v)
  static SqlParam numpy(int64_t v) { return {Kind::kNumpyInt, v}; }  // numpy.int64 v
};

// One row of the span queries: start, end, duration (ns) and a name.
struct Span {
  int64_t start_ns = 0, end_ns = 0, duration = 0;
  std::string name;
};

// One node@launch task: its device, CANN and framework times (ns).
struct Launch {
  int64_t device_start = 0, device_end = 0, cann_start = 0, cann_end = 0, pytorch_start = 0,
          pytorch_end = 0;
};

// A rank's database; every read returns nullopt when the file or the query fails (msprof-analyze
// then has no DataFrame), with a message in `error`.
class BottleneckDb {
 public:
  explicit BottleneckDb(std::string path) : path_(std::move(path)) {}
  const std::string& path() const { return path_; }
  // Communication ops within [start, end], longest first.
  std::optional<std::vector<Span>> communication_ops(int64_t start, int64_t end);
  // For each of `names` in order, the op of that name (GROUP BY the name: one row, SQLite's pick
  // of start and end), through one connection and one prepared statement; nullopt for a name
  // whose query failed.
  std::vector<std::optional<std::vector<Span>>> ops_named(const std::vector<std::string>& names);
  // node@launch tasks with their framework op, strictly inside (start, end), latest first.
  std::optional<std::vector<Launch>> launches(SqlParam start, SqlParam end);
  // Device tasks: compute kernels, communication tasks (per name: first start, last end) and
  // memcpy tasks within [start, end].
  std::optional<std::vector<Span>> compute_tasks(SqlParam start, SqlParam end);
  std::optional<std::vector<Span>> communication_tasks(SqlParam start, SqlParam end);
  std::optional<std::vector<Span>> memcpy_tasks(SqlParam start, SqlParam end);
  // Host tasks within [start, end]: framework ops named "...::...", CANN APIs as "type@name".
  std::optional<std::vector<Span>> pytorch_tasks(SqlParam start, SqlParam end);
  std::optional<std::vector<Span>> cann_tasks(SqlParam start, SqlParam end);

  std::string error;

 private:
  std::optional<std::vector<Span>> spans(const char* sql, const std::vector<SqlParam>& params);
  std::string path_;
};

}  // namespace cs::recipes::communication_bottleneck
