#include "msprof_analyze/recipes/free_analysis/free_analysis.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <unordered_map>

#include "frame/frame_ops.h"
#include "frame/pandas_sort.h"
#include "io/py_format.h"
#include "msprof_analyze/recipes/frame_writers.h"
#include "msprof_analyze/recipes/free_analysis/free_analysis_scan.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"

namespace cs::recipes::free_analysis {

namespace {

constexpr size_t kTopNum = 10;
constexpr int64_t kDiffWaitThresholdNs = 50 * 1000;

const char* const kBusyQuery = R"(
WITH combined_tasks AS (
    SELECT TASK.startNs as startNs, TASK.endNs as endNs
    FROM COMPUTE_TASK_INFO CTI JOIN TASK ON TASK.globalTaskId = CTI.globalTaskId
    UNION ALL
    SELECT COMM.startNs as startNs, COMM.endNs as endNs FROM COMMUNICATION_OP COMM
),
grouped_tasks AS (
    SELECT startNs, endNs, SUM(new_group) OVER (ORDER BY startNs) AS group_id
    FROM (
        SELECT startNs, endNs,
            CASE WHEN startNs > MAX(endNs) OVER (
                ORDER BY startNs ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
            ) OR MAX(endNs) OVER (
                ORDER BY startNs ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
            ) IS NULL THEN 1 ELSE 0 END AS new_group
        FROM combined_tasks
    )
)
SELECT MIN(startNs) AS "start_ns", MAX(endNs) AS "end_ns", MAX(endNs) - MIN(startNs) AS "duration"
FROM grouped_tasks GROUP BY group_id ORDER BY startNs
)";

const char* const kLinkQuery = R"(
    SELECT task_str.value as task_type, TASK.startNs as task_ts, TASK.endNs as task_end,
        cann.startNs as cann_ts, cann.endNs as cann_end,
        pytorch.startNs as pytorch_ts, pytorch.endNs as pytorch_end
    FROM TASK
    LEFT JOIN CANN_API cann ON TASK.connectionId = cann.connectionId
    LEFT JOIN STRING_IDS as task_str ON TASK.taskType = task_str.id
    LEFT JOIN CONNECTION_IDS conn ON conn.connectionId = TASK.connectionId
    LEFT JOIN PYTORCH_API pytorch ON pytorch.connectionId = conn.id
    ORDER BY TASK.startNs ASC
)";

// ensure_numeric_columns: pd.to_numeric(errors="coerce").fillna(0).astype("int64"). Text is
// parsed; when any value is missing or not an integer the column went through float64, so every
// value is rounded to a double first (ns timestamps lose their last bits, as in msprof-analyze).
// pandas' precise_xstrtod (to_numeric's string parser) for an optionally signed digit string:
// the first 17 digits accumulated in a double, the rest as a power of ten.
double pandas_strtod(const std::string& s) {
  static const double kPow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10};
  size_t i = 0;
  const bool neg = !s.empty() && s[0] == '-';
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) ++i;
  double number = 0.0;
  int digits = 0, exponent = 0;
  for (; i < s.size(); ++i) {
    if (digits < 17) {
      number = number * 10.0 + (s[i] - '0');
      ++digits;
    } else {
      ++exponent;
    }
  }
  if (exponent > 0) number *= exponent <= 10 ? kPow10[exponent] : std::pow(10.0, exponent);
  return neg ? -number : number;
}

// Over cells or RawValues (both read as kind, i(), num(), str()).
template <class Values>
std::vector<int64_t> as_int(const Values& values) {
  std::vector<int64_t> v;
  v.reserve(values.size());
  bool through_float = false;
  for (const auto& cell : values) {
    int64_t i = 0;
    bool ok = cell.kind == frame::Cell::Kind::kInt;
    if (ok) {
      i = cell.i();
    } else if (cell.kind == frame::Cell::Kind::kText) {
      char* end = nullptr;
      errno = 0;
      i = std::strtoll(cell.str().c_str(), &end, 10);
      ok = !cell.str().empty() && *end == '\0' && errno == 0;
    }
    if (!ok) {
      through_float = true;
      break;
    }
    v.push_back(i);
  }
  if (!through_float) return v;
  // Some value is not an integer: the column went through float64 (every value rounded).
  std::vector<double> d;
  v.clear();
  for (const auto& cell : values) {
    int64_t i = 0;
    double x = 0.0;
    bool ok = true, is_int = true;
    if (cell.kind == frame::Cell::Kind::kInt) {
      i = cell.i();
    } else if (cell.kind == frame::Cell::Kind::kReal) {
      x = cell.num();
      is_int = false;
    } else if (cell.kind == frame::Cell::Kind::kText) {
      char* end = nullptr;
      errno = 0;
      i = std::strtoll(cell.str().c_str(), &end, 10);
      if (cell.str().empty() || *end != '\0' || errno != 0) {
        is_int = false;
        x = std::strtod(cell.str().c_str(), &end);
        ok = !cell.str().empty() && *end == '\0';
      }
    } else {
      ok = false;
    }
    if (!ok || !is_int) through_float = true;
    v.push_back(ok && is_int ? i : 0);
    const bool text = cell.kind == frame::Cell::Kind::kText;
    d.push_back(!ok ? 0.0
                    : (is_int ? (text ? pandas_strtod(cell.str()) : static_cast<double>(i)) : x));
  }
  if (through_float)
    for (size_t k = 0; k < v.size(); ++k) v[k] = std::isnan(d[k]) ? 0 : static_cast<int64_t>(d[k]);
  return v;
}

std::string us(int64_t ns) {
  return io::py_repr(io::py_round(static_cast<double>(ns) * 0.001, 3));
}

struct Link {
  std::vector<const frame::Cell*> type;
  std::vector<int64_t> ts, end, cann_ts, cann_end, pt_end;
  const std::vector<RawValue>* pt_ts = nullptr;
  bool pt_ts_numeric = false;  // the column held numbers (NULLs read as NaN, which is truthy)
};

// FrameColumn::dtype() != kObject for the values: numbers and no text.
bool numeric_column(const std::vector<RawValue>& values) {
  bool any_number = false;
  for (const auto& v : values) {
    if (v.kind == frame::Cell::Kind::kText) return false;
    if (v.kind != frame::Cell::Kind::kNull) any_number = true;
  }
  return any_number;
}

bool dispatched(const Link& l, size_t i) {
  const RawValue& c = (*l.pt_ts)[i];
  if (c.is_null()) return l.pt_ts_numeric;
  if (c.kind == frame::Cell::Kind::kText) return !c.str().empty();
  return c.num() != 0.0;
}

}  // namespace

const char* free_analysis_busy_sql() {
  return kBusyQuery;
}
const char* free_analysis_link_sql() {
  return kLinkQuery;
}

std::string ns_to_us_text(int64_t ns) {
  const bool neg = ns < 0;
  const uint64_t a = neg ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  std::string s = (neg ? "-" : "") + std::to_string(a / 1000);
  uint64_t frac = a % 1000;
  if (frac == 0) return s;
  std::string f = std::to_string(frac);
  f.insert(0, 3 - f.size(), '0');
  while (f.back() == '0') f.pop_back();
  return s + "." + f;
}

bool FreeAnalysis::map(const RankDbPaths& paths, frame::FrameSet& out,
                       io::Diagnostics& diag) const {
  recipes::RankDb db(paths.profiler_db, diag);
  if (!db.ok()) return false;
  if (!tables_present(db, paths.profiler_db,
                      {"TASK", "COMPUTE_TASK_INFO", "COMMUNICATION_OP", "CANN_API", "STRING_IDS",
                       "CONNECTION_IDS", "PYTORCH_API"},
                      diag, "this rank is skipped"))
    return false;
  // The scans give the SQL's rows exactly or decline, and then the SQL runs (and reports).
  // One read of TASK serves both queries.
  const std::string link_sql = kLinkQuery;
  // The joint scan runs when answer_query first tries it (never with the scans off).
  FreeAnalysisScan scan;
  bool scanned = false;
  auto joint = [&]() -> FreeAnalysisScan& {
    if (!scanned) scan = scan_free_analysis(db.database(), &link_sql);
    scanned = true;
    return scan;
  };
  std::vector<int64_t> bs, be;
  const bool busy_ok = answer_query(
      "free_analysis.busy",
      [&] {
        if (!joint().busy_ok) return false;
        for (const auto& b : scan.busy) {
          bs.push_back(b.start);
          be.push_back(b.end);
        }
        return true;
      },
      [&] {
        frame::Frame busy;
        if (!db.query(kBusyQuery, {}, busy, "TASK", diag)) return false;
        if (busy.rows() > 0) {
          bs = as_int(busy.columns[0].cells);
          be = as_int(busy.columns[1].cells);
        }
        return true;
      });
  if (!busy_ok) return false;
  if (bs.size() < 2) return true;
  std::vector<int64_t> fs, fe, fd;
  for (size_t i = 0; i + 1 < bs.size(); ++i) {
    fs.push_back(be[i]);
    fe.push_back(bs[i + 1]);
    fd.push_back(bs[i + 1] - be[i]);
  }
  auto top = frame::pandas_sort_order(
      fd.size(), [&](size_t a, size_t b) { return fd[a] < fd[b]; }, false);
  if (top.size() > kTopNum) top.resize(kTopNum);
  LinkRows& link = scan.link;
  const bool link_ok = answer_query(
      "free_analysis.link", [&] { return joint().link_ok; },
      [&] {
        frame::Frame rows;
        if (!db.query(kLinkQuery, {}, rows, "TASK", diag)) return false;
        link = LinkRows{};
        for (const auto& c : rows.columns[5].cells) link.pytorch_ts.push_back(RawValue::of(c));
        for (const auto& c : rows.columns[6].cells) link.pytorch_end.push_back(RawValue::of(c));
        rows.columns.resize(5);
        link.cells = std::move(rows);
        return true;
      });
  if (!link_ok) return false;
  if (link.pytorch_ts.empty()) return true;
  const frame::Frame& link_rows = link.cells;
  Link l;
  for (const auto& c : link_rows.columns[0].cells) l.type.push_back(&c);
  l.ts = as_int(link_rows.columns[1].cells);
  l.end = as_int(link_rows.columns[2].cells);
  l.cann_ts = as_int(link_rows.columns[3].cells);
  l.cann_end = as_int(link_rows.columns[4].cells);
  l.pt_ts = &link.pytorch_ts;
  l.pt_ts_numeric = numeric_column(link.pytorch_ts);
  l.pt_end = as_int(link.pytorch_end);
  const size_t n = l.ts.size();
  frame::Frame rows;
  auto& rank = rows.add("rankId");
  auto& start_us = rows.add("startTime(us)");
  auto& end_us = rows.add("endTime(us)");
  auto& dur = rows.add("duration(us)");
  auto& pt_idle = rows.add("pytorchIdleTime(us)");
  auto& cann_idle = rows.add("cannIdleTime(us)");
  auto& reason = rows.add("reason");
  for (size_t k : top) {
    const int64_t s = fs[k], e = fe[k];
    rank.push_back(frame::Cell::integer(paths.rank));
    start_us.push_back(frame::Cell::text(ns_to_us_text(s)));
    end_us.push_back(frame::Cell::text(ns_to_us_text(e)));
    dur.push_back(frame::Cell::real(io::py_round(static_cast<double>(e - s) * 0.001, 3)));
    frame::Cell pi, ci;
    std::string why;
    std::vector<size_t> inside, before, after;
    for (size_t i = 0; i < n; ++i) {
      if (l.ts[i] > s && l.end[i] < e) inside.push_back(i);
      if (l.end[i] <= s) before.push_back(i);
      if (l.ts[i] >= e) after.push_back(i);
    }
    if (!inside.empty()) {
      // value_counts: first-seen order, then sorted by descending count (numpy's quicksort).
      std::vector<std::string> kinds;
      std::unordered_map<std::string, size_t> count;
      for (size_t i : inside) {
        if (l.type[i]->kind != frame::Cell::Kind::kText) continue;
        if (count[l.type[i]->str()]++ == 0) kinds.push_back(l.type[i]->str());
      }
      const auto order = frame::pandas_sort_order(
          kinds.size(), [&](size_t a, size_t b) { return count[kinds[a]] < count[kinds[b]]; },
          false);
      std::string desc;
      for (size_t j = 0; j < order.size(); ++j)
        desc += (j ? ", " : "") + std::to_string(count[kinds[order[j]]]) + " " + kinds[order[j]] +
                " tasks";
      std::vector<size_t> by_start = inside;
      std::stable_sort(by_start.begin(), by_start.end(),
                       [&](size_t a, size_t b) { return l.ts[a] < l.ts[b]; });
      std::vector<std::pair<int64_t, int64_t>> merged;
      for (size_t i : by_start) {
        if (!merged.empty() && l.ts[i] <= merged.back().second)
          merged.back().second = std::max(merged.back().second, l.end[i]);
        else
          merged.emplace_back(l.ts[i], l.end[i]);
      }
      int64_t cur = s, longest = -1;
      for (auto [ts, te] : merged) {
        ts = std::max(ts, s);
        te = std::min(te, e);
        if (te <= s || ts >= e) continue;
        if (cur < ts) longest = std::max(longest, ts - cur);
        cur = std::max(cur, te);
      }
      if (cur < e) longest = std::max(longest, e - cur);
      why = longest >= 0
                ? "Device task running: " + desc + ", max remaining free " + us(longest) + " us"
                : "Device task running: " + desc + ".";
    } else if (before.empty() || after.empty()) {
      why = "Skip free analysis due to no prev or next task.";
    } else {
      const auto bo = frame::pandas_sort_order(
          before.size(), [&](size_t a, size_t b) { return l.end[before[a]] < l.end[before[b]]; },
          true);
      const auto ao = frame::pandas_sort_order(
          after.size(), [&](size_t a, size_t b) { return l.ts[after[a]] < l.ts[after[b]]; }, true);
      const size_t p = before[bo.back()], q = after[ao.front()];
      if (!dispatched(l, p) || !dispatched(l, q)) {
        why = "Skip free analysis due to no pytorch dispatch time.";
      } else {
        const int64_t pidle = l.pt_end[q] - l.pt_end[p];
        const int64_t cidle = l.cann_end[q] - l.cann_end[p];
        pi = frame::Cell::real(io::py_round(static_cast<double>(pidle) * 0.001, 3));
        ci = frame::Cell::real(io::py_round(static_cast<double>(cidle) * 0.001, 3));
        const int64_t prev_wait = l.cann_ts[p] - l.pt_end[p];
        const int64_t next_wait = l.cann_ts[q] - l.pt_end[q];
        if (next_wait - prev_wait < kDiffWaitThresholdNs) {
          why = "Idle Pytorch layer: no task dispatched in " + us(pidle) + " us";
        } else {
          const int64_t prev_launch = l.cann_end[p] - l.cann_ts[p];
          const int64_t next_launch = l.cann_end[q] - l.cann_ts[q];
          const int64_t gap = l.cann_ts[q] - l.cann_end[p];
          if (std::max({prev_launch, next_launch, gap}) == gap)
            why = "Abnormal CANN layer: long time between two node@launch " + us(gap) + " us";
          else
            why = "Abnormal CANN layer: long node@launch " +
                  us(std::max(prev_launch, next_launch)) + " us";
        }
      }
    }
    pt_idle.push_back(pi);
    cann_idle.push_back(ci);
    reason.push_back(frame::Cell::text(why));
  }
  out["free"] = std::move(rows);
  return true;
}

bool FreeAnalysis::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                          io::Diagnostics& diag) const {
  const std::vector<const frame::Frame*> frames = used_frames(parts, "free", true);
  if (frames.empty()) {
    diag.warn(out.cluster_output_dir, 0, "free_analysis: no free time found",
              "nothing was written");
    return true;
  }
  frame::Frame all = frame::concat_frames(frames, frame::column_union(frames));
  if (out.export_type == ExportType::kDb)
    return recipes::write_frame_sqlite(all, out.db_path(dir_name()), "FreeAnalysis", diag,
                                       out.threads);
  const char* names[] = {"Rank ID",      "Start Time(us)",        "End Time(us)",
                         "Duration(us)", "Pytorch Idle Time(us)", "Cann Idle Time(us)",
                         "Reason"};
  for (size_t c = 0; c < all.columns.size(); ++c) all.columns[c].name = names[c];
  return recipes::write_frame_csv(all, out.dir(dir_name()) + "/free_analysis.csv", diag);
}

}  // namespace cs::recipes::free_analysis
