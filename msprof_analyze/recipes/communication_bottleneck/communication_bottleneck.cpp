#include "msprof_analyze/recipes/communication_bottleneck/communication_bottleneck.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <utility>

#include "frame/pandas_sort.h"
#include "io/py_format.h"
#include "msprof_analyze/recipes/frame_writers.h"

namespace cs::recipes::communication_bottleneck {

namespace {

// msprof-analyze's thresholds (its config.json).
constexpr double kSlowNpuHappen = 0.05;
constexpr int64_t kDiffWaitingTime = 100000;  // 100 µs
constexpr int64_t kStartShifted = 1000000;    // 1 ms
constexpr double kDeviceBoundProportion = 0.5;
constexpr int kDefaultTopNum = 10;

// sort_values(by=key, ascending=False) of `rows` (pandas' order, equal keys included).
template <class T, class Key>
std::vector<T> sorted_desc(const std::vector<T>& rows, Key key) {
  const auto order = frame::pandas_sort_order(
      rows.size(), [&](size_t a, size_t b) { return key(rows[a]) < key(rows[b]); }, false);
  std::vector<T> out;
  out.reserve(rows.size());
  for (size_t i : order) out.push_back(rows[i]);
  return out;
}

// One analysed op: the row of the output.
struct Reason {
  int64_t start_ns = 0, end_ns = 0, duration = 0;
  std::string comm_name;
  std::optional<int64_t> slow_rank, fast_rank;
  std::string reason;
};

// "<level>: max duration-diff op ..., max start-time-diff op ..." of the matched tasks; nullopt
// when they are not aligned (or none matched).
std::optional<std::string> diff_summary(const std::optional<std::vector<Span>>& slow,
                                        const std::optional<std::vector<Span>>& fast,
                                        int64_t clock_shift, const char* level) {
  if (!slow || slow->empty() || !fast || fast->empty()) return std::nullopt;
  bool unaligned = true;
  const std::vector<TaskDiff> diffs =
      match_tasks(*slow, *fast, clock_shift, kStartShifted, unaligned);
  if (unaligned || diffs.empty()) return std::nullopt;
  const TaskDiff by_duration =
      sorted_desc(diffs, [](const TaskDiff& d) { return d.diff_duration; }).front();
  const TaskDiff by_start =
      sorted_desc(diffs, [](const TaskDiff& d) { return d.diff_start_ns; }).front();
  return std::string(level) + ": max duration-diff op " + by_duration.name + ", diff " +
         us_float(by_duration.diff_duration) + " us, max start-time-diff op " + by_start.name +
         ", diff " + us_float(by_start.diff_start_ns) + " us.";
}

// The device tasks before `end` (a numpy int64 in msprof-analyze: see bottleneck_queries.h),
// latest first; nullopt when every query failed or found nothing.
std::optional<std::vector<Span>> device_tasks(BottleneckDb& db, int64_t end) {
  std::vector<Span> all;
  const SqlParam lo = SqlParam::integer(0), hi = SqlParam::numpy(end);
  for (auto rows :
       {db.compute_tasks(lo, hi), db.communication_tasks(lo, hi), db.memcpy_tasks(lo, hi)})
    if (rows) all.insert(all.end(), rows->begin(), rows->end());
  if (all.empty()) return std::nullopt;
  return sorted_desc(all, [](const Span& s) { return s.start_ns; });
}

class Analysis {
 public:
  Analysis(std::map<int, std::string> dirs, std::map<int, std::string> dbs)
      : dirs_(std::move(dirs)), dbs_(std::move(dbs)) {}

  // msprof-analyze reads ascend_pytorch_profiler_{N}.db of every rank here, whatever the layout.
  BottleneckDb pytorch_db(int rank) const {
    return BottleneckDb((std::filesystem::path(dirs_.at(rank)) / "ASCEND_PROFILER_OUTPUT" /
                         ("ascend_pytorch_profiler_" + std::to_string(rank) + ".db"))
                            .string());
  }

  // An op's span on one rank.
  struct Instance {
    Span span;
    int rank;
  };

  // Every rank's instances of each of `ops` (by name), in rank order: each rank's database
  // opened once for all of them.
  std::vector<std::vector<Instance>> instances(const std::vector<Span>& ops) const {
    std::vector<std::string> names;
    for (const Span& op : ops) names.push_back(op.name);
    std::vector<std::vector<Instance>> out(ops.size());
    for (const auto& [rank, path] : dbs_) {
      BottleneckDb db(path);
      auto rows = db.ops_named(names);
      for (size_t i = 0; i < ops.size(); ++i)
        if (rows[i])
          for (auto& s : *rows[i]) out[i].push_back({std::move(s), rank});
    }
    return out;
  }

  // `all`: the op's instances (instances()).
  Reason analyse(const Span& op, std::vector<Instance> all) {
    Reason r;
    r.start_ns = op.start_ns;
    r.end_ns = op.end_ns;
    r.duration = op.duration;
    r.comm_name = op.name;
    // Longest first.
    if (all.empty()) {
      r.reason = "[Failed] No data found for the communication operator";
      return r;
    }
    all = sorted_desc(all, [](const Instance& i) { return i.span.duration; });
    const Instance& quick = all.front();
    const Instance& slow = all.back();
    const double ratio = static_cast<double>(quick.span.duration - slow.span.duration) /
                         static_cast<double>(quick.span.duration);
    if (ratio < kSlowNpuHappen) {
      r.reason = "[Completed] No slow NPU detected: execution time difference is less than " +
                 io::py_repr(kSlowNpuHappen) + "%";
      return r;
    }
    const int64_t clock_shift = quick.span.end_ns - slow.span.end_ns;
    r.slow_rank = slow.rank;
    r.fast_rank = quick.rank;
    analyse_slow(r, clock_shift, quick.span.start_ns, slow.span.start_ns, slow.span.end_ns);
    return r;
  }

 private:
  void analyse_slow(Reason& r, int64_t clock_shift, int64_t fast_start, int64_t slow_start,
                    int64_t slow_end) {
    BottleneckDb slow_db = pytorch_db(static_cast<int>(*r.slow_rank));
    BottleneckDb fast_db = pytorch_db(static_cast<int>(*r.fast_rank));
    const auto launches =
        slow_db.launches(SqlParam::text(fast_start - clock_shift), SqlParam::text(slow_end));
    if (!launches || launches->empty()) {
      r.reason = "[Failed] Insufficient data for analyzing slow NPU bottleneck";
      return;
    }
    size_t device_problems = 0;
    for (const Launch& l : *launches) {
      const int64_t host_wait = l.cann_start - l.pytorch_end;
      const int64_t device_wait = l.device_start - l.cann_end;
      device_problems += device_wait - host_wait > kDiffWaitingTime;
    }
    const bool device_bound =
        static_cast<double>(device_problems) / static_cast<double>(launches->size()) >
        kDeviceBoundProportion;
    if (device_bound) {
      const auto summary = diff_summary(device_tasks(slow_db, slow_start),
                                        device_tasks(fast_db, fast_start), clock_shift, "Device");
      r.reason = summary ? "[Device-bound]" + *summary
                         : "[Device-bound] Tasks are not aligned between slow and fast NPU from "
                           "the beginning";
      return;
    }
    const SqlParam zero = SqlParam::text(0);
    const auto slow_pt = slow_db.pytorch_tasks(zero, SqlParam::text(slow_start));
    const auto slow_cann = slow_db.cann_tasks(zero, SqlParam::text(slow_start));
    const auto fast_pt = fast_db.pytorch_tasks(zero, SqlParam::text(fast_start));
    const auto fast_cann = fast_db.cann_tasks(zero, SqlParam::text(fast_start));
    const auto pytorch = diff_summary(slow_pt, fast_pt, clock_shift, "PyTorch");
    const auto cann = diff_summary(slow_cann, fast_cann, clock_shift, "CANN");
    if (!pytorch) {
      r.reason = "[Host-bound] Tasks are not aligned between slow and fast NPU from the beginning";
      return;
    }
    r.reason = "[Host-bound] " + *pytorch + (cann ? " | " + *cann : "");
  }

  std::map<int, std::string> dirs_;  // rank -> rank directory
  std::map<int, std::string> dbs_;   // rank -> profiler database (ranks that have one)
};

// The output table: msprof-analyze's DataFrame of the reasons (a rank id column with a None is
// float64, one of only None is object).
frame::Frame reason_frame(const std::vector<Reason>& reasons, bool text) {
  frame::Frame f;
  auto& start = f.add(text ? "Start Time(us)" : "startTime(us)");
  auto& end = f.add(text ? "End Time(us)" : "endTime(us)");
  auto& duration = f.add(text ? "Duration(us)" : "duration(us)");
  auto& op = f.add(text ? "Communication Op" : "communicationOp");
  auto& slow = f.add(text ? "Slow Rank ID" : "slowRankId");
  auto& fast = f.add(text ? "Fast Rank ID" : "fastRankId");
  auto& reason = f.add(text ? "Reason" : "reason");
  for (const Reason& r : reasons) {
    start.push_back(frame::Cell::text(us_text(r.start_ns)));
    end.push_back(frame::Cell::text(us_text(r.end_ns)));
    duration.push_back(frame::Cell::real(io::py_round(static_cast<double>(r.duration) * 0.001, 3)));
    op.push_back(frame::Cell::text(r.comm_name));
    slow.push_back(r.slow_rank ? frame::Cell::integer(*r.slow_rank) : frame::Cell::null());
    fast.push_back(r.fast_rank ? frame::Cell::integer(*r.fast_rank) : frame::Cell::null());
    reason.push_back(frame::Cell::text(r.reason));
  }
  return f;
}

}  // namespace

std::vector<TaskDiff> match_tasks(const std::vector<Span>& slow, const std::vector<Span>& fast,
                                  int64_t clock_shift, int64_t threshold, bool& unaligned) {
  const auto by_start = [](const Span& s) { return s.start_ns; };
  const std::vector<Span> s = sorted_desc(slow, by_start), f = sorted_desc(fast, by_start);
  std::vector<TaskDiff> out;
  unaligned = true;
  size_t next = 0;
  for (const Span& task : s) {
    for (size_t i = next; i < f.size(); ++i) {
      if (f[i].name != task.name) continue;
      next = i + 1;
      const int64_t diff_start = task.start_ns - f[i].start_ns + clock_shift;
      out.push_back(
          {task.start_ns, task.duration, task.name, diff_start, task.duration - f[i].duration});
      if (diff_start < threshold) unaligned = false;
      break;
    }
    if (!unaligned) break;
  }
  return out;
}

std::string us_text(int64_t ns) {
  const bool negative = ns < 0;
  const uint64_t a = negative ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  std::string frac = std::to_string(a % 1000);
  frac.insert(0, 3 - frac.size(), '0');
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  return (negative ? "-" : "") + std::to_string(a / 1000) + (frac.empty() ? "" : "." + frac);
}

std::string us_float(int64_t ns) {
  return io::py_repr(io::py_round(static_cast<double>(ns) * 0.001, 3));
}

bool CommunicationBottleneck::map(const RankDbPaths& paths, frame::FrameSet& out,
                                  io::Diagnostics& /*diag*/) const {
  // The analysis asks each rank for a few ops chosen on the root; the rank's files are named here.
  frame::Frame f;
  f.add("rank_dir").push_back(frame::Cell::text(paths.rank_dir));
  f.add("profiler_db").push_back(frame::Cell::text(paths.profiler_db));
  out["paths"] = std::move(f);
  return true;
}

bool CommunicationBottleneck::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                                     io::Diagnostics& diag) const {
  std::map<int, std::string> dirs, dbs;
  for (const auto& p : parts) {
    auto it = p.frames.find("paths");
    if (it == p.frames.end() || it->second.rows() == 0) continue;
    dirs[p.rank] = std::string(it->second.columns[0].cells[0].str());
    if (p.used) dbs[p.rank] = std::string(it->second.columns[1].cells[0].str());
  }
  const int target = out.rank_id;
  if (!dirs.count(target)) {
    diag.error(out.input_dir, 0,
               "communication_bottleneck: rank " + std::to_string(target) +
                   " (--rank_id) is not in the job",
               "give --rank_id one of the job's ranks");
    return false;
  }
  Analysis analysis(dirs, dbs);
  BottleneckDb target_db = analysis.pytorch_db(target);
  auto ops = target_db.communication_ops(0, INT64_MAX);
  if (!ops || ops->empty()) {
    diag.warn(
        target_db.path(), 0,
        "communication_bottleneck: no communication op found for rank " + std::to_string(target) +
            (ops ? "" : " (" + target_db.error + ")"),
        "nothing was written (msprof-analyze reads torch_npu's ascend_pytorch_profiler_N.db)");
    return true;
  }
  // head(top_num): the first N rows (all but the last -N for a negative N).
  const int n = out.top_num < 0 ? kDefaultTopNum : out.top_num;
  ops->resize(std::min(ops->size(), static_cast<size_t>(n)));
  if (ops->empty()) {
    diag.warn(target_db.path(), 0, "communication_bottleneck: --top_num 0 asks for no op",
              "nothing was written");
    return true;
  }
  std::vector<Reason> reasons;
  auto instances = analysis.instances(*ops);
  for (size_t i = 0; i < ops->size(); ++i)
    reasons.push_back(analysis.analyse((*ops)[i], std::move(instances[i])));
  if (out.export_type == ExportType::kText)
    return recipes::write_frame_csv(reason_frame(reasons, true),
                                    out.dir(dir_name()) + "/communication_bottleneck.csv", diag);
  return recipes::write_frame_sqlite(reason_frame(reasons, false), out.db_path(dir_name()),
                                     "CommunicationBottleneck", diag, out.threads);
}

}  // namespace cs::recipes::communication_bottleneck
