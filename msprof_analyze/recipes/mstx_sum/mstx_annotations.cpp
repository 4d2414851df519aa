#include "msprof_analyze/recipes/mstx_sum/mstx_annotations.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include "frame/frame_ops.h"
#include "msprof_analyze/recipes/mstx_sum/mstx_marks_scan.h"
#include "msprof_analyze/recipes/mstx_sum/mstx_range_scan.h"

namespace cs::recipes::mstx_sum {

namespace {

// msprof-analyze's MstxMarkExport without the joins its table check never enables.
const char* kMarkQuery =
    "SELECT MSG_IDS.value AS \"msg\", MSTX_EVENTS.startNs AS \"cann_ts\", "
    "MSTX_EVENTS.globalTid AS \"tid\" FROM MSTX_EVENTS "
    "LEFT JOIN STRING_IDS AS MSG_IDS ON MSTX_EVENTS.message = MSG_IDS.id "
    "WHERE MSTX_EVENTS.eventType = 3 AND MSTX_EVENTS.startNs >= ? AND MSTX_EVENTS.startNs <= ? "
    "ORDER BY MSTX_EVENTS.startNs";

// MstxRangeExport: with TASK the device span of the task tied by connectionId, else 0.
std::string range_query(bool with_task) {
  return std::string(
             "SELECT MSG_IDS.value AS \"msg\", MSTX_EVENTS.startNs AS \"cann_start_ts\", "
             "MSTX_EVENTS.endNs AS \"cann_end_ts\", ") +
         (with_task ? "TASK.startNs" : "0") + " AS \"device_start_ts\", " +
         (with_task ? "TASK.endNs" : "0") +
         " AS \"device_end_ts\", MSTX_EVENTS.globalTid AS \"tid\" FROM MSTX_EVENTS " +
         (with_task ? "LEFT JOIN TASK ON MSTX_EVENTS.connectionId = TASK.connectionId " : "") +
         "LEFT JOIN STRING_IDS AS MSG_IDS ON MSTX_EVENTS.message = MSG_IDS.id "
         "WHERE MSTX_EVENTS.eventType = 2 AND MSTX_EVENTS.startNs >= ? AND "
         "MSTX_EVENTS.startNs <= ? AND MSTX_EVENTS.connectionId != 4294967295 "
         "ORDER BY MSTX_EVENTS.startNs";
}

const char* kStepQuery = "SELECT id, startNs, endNs FROM STEP_TIME ORDER BY startNs";

constexpr size_t kMaxTreeDepth = 100;  // msprof-analyze's tree builder stops there

const std::string kStart = "_start", kStop = "_stop";

std::optional<int64_t> int_at(const frame::FrameColumn& c, size_t r) {
  const frame::Cell& x = c.cells[r];
  if (x.kind == frame::Cell::Kind::kInt) return x.i();
  if (x.kind == frame::Cell::Kind::kReal && std::isfinite(x.num()))
    return static_cast<int64_t>(x.num());
  return std::nullopt;
}

// A column as pandas holds it after read_sql: int64 when every cell is an integer, else float64
// (NULL -> NaN). Differences of such columns are taken in that type.
struct NumColumn {
  const frame::FrameColumn* c;
  bool as_float;
  explicit NumColumn(const frame::FrameColumn* col) : c(col), as_float(false) {
    for (const auto& x : c->cells)
      if (x.kind != frame::Cell::Kind::kInt) as_float = true;
  }
};

double difference(const NumColumn& a, const NumColumn& b, size_t r) {
  const frame::Cell &x = a.c->cells[r], &y = b.c->cells[r];
  if (!a.as_float && !b.as_float) return static_cast<double>(x.i() - y.i());
  auto num = [](const frame::Cell& c) { return c.is_number() ? c.num() : std::nan(""); };
  return num(x) - num(y);
}

struct Pending {
  std::string name;
  double framework = 0, cann = 0, device = 0;
  int64_t start_ns = 0;
};

// handle_mark_data: start/stop pairs per thread and message.
void pair_marks(const frame::Frame& marks, std::vector<Pending>& out,
                std::vector<std::string>& unmatched) {
  const frame::FrameColumn* msg = frame::find_column(marks, "msg");
  const frame::FrameColumn* ts = frame::find_column(marks, "cann_ts");
  const frame::FrameColumn* tid = frame::find_column(marks, "tid");
  std::map<std::pair<std::optional<int64_t>, std::string>, std::vector<size_t>> open;
  std::vector<std::pair<size_t, std::string>> missing;  // (row, message) in row order
  for (size_t r = 0; r < marks.rows(); ++r) {
    const std::string m = msg->cells[r].kind == frame::Cell::Kind::kText ? msg->cells[r].str() : "";
    const auto key_tid = int_at(*tid, r);
    if (m.ends_with(kStart)) {
      open[{key_tid, m.substr(0, m.size() - kStart.size())}].push_back(r);
    } else if (m.ends_with(kStop)) {
      const std::string base = m.substr(0, m.size() - kStop.size());
      auto it = open.find({key_tid, base});
      if (it == open.end() || it->second.empty()) {
        missing.emplace_back(r, m);
        continue;
      }
      const size_t s = it->second.back();
      it->second.pop_back();
      Pending p;
      p.name = base;
      p.cann = static_cast<double>(*int_at(*ts, r) - *int_at(*ts, s));
      p.start_ns = *int_at(*ts, s);
      out.push_back(std::move(p));
    }
  }
  for (const auto& [key, rows] : open)
    for (size_t r : rows) missing.emplace_back(r, key.second + kStart);
  std::sort(missing.begin(), missing.end());
  for (auto& [r, m] : missing) unmatched.push_back(std::move(m));
}

struct RangeNode {
  int64_t start, end;
  std::string name;
  std::vector<size_t> children;
};

// MstxSumRecipeTreeBuilder: a range nested in another is renamed "outer::inner"; every row
// with a node's exact span takes that node's name, nodes visited in preorder.
void name_nested_ranges(const frame::Frame& ranges, std::vector<std::string>& names) {
  const frame::FrameColumn* s = frame::find_column(ranges, "cann_start_ts");
  const frame::FrameColumn* e = frame::find_column(ranges, "cann_end_ts");
  std::vector<RangeNode> nodes(1);  // the root spans everything
  std::vector<size_t> rows;
  for (size_t r = 0; r < ranges.rows(); ++r) {
    const auto a = int_at(*s, r), b = int_at(*e, r);
    if (!a || !b) continue;
    nodes.push_back({*a, *b, names[r], {}});
    rows.push_back(r);
  }
  if (rows.empty()) return;
  nodes[0].start = std::numeric_limits<int64_t>::min();
  nodes[0].end = std::numeric_limits<int64_t>::max();
  std::vector<size_t> order(nodes.size() - 1);
  for (size_t i = 0; i < order.size(); ++i) order[i] = i + 1;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return nodes[x].start != nodes[y].start ? nodes[x].start < nodes[y].start
                                            : nodes[x].end > nodes[y].end;
  });
  std::vector<size_t> stack{0};
  for (size_t n : order) {
    while (stack.size() > 1 &&
           (nodes[stack.back()].start > nodes[n].start || nodes[stack.back()].end < nodes[n].end))
      stack.pop_back();
    nodes[stack.back()].children.push_back(n);
    stack.push_back(n);
  }
  std::map<std::pair<int64_t, int64_t>, std::string> by_span;
  std::function<void(size_t, const std::string&, size_t)> visit =
      [&](size_t n, const std::string& path, size_t depth) {
        if (depth >= kMaxTreeDepth) return;
        RangeNode& node = nodes[n];
        if (!node.name.empty() && !path.empty()) node.name = path + "::" + node.name;
        if (n != 0 && !node.name.empty()) by_span[{node.start, node.end}] = node.name;
        for (size_t c : node.children) visit(c, node.name, depth + 1);
      };
  visit(0, "", 0);
  for (size_t i = 0; i < rows.size(); ++i) {
    auto it = by_span.find({nodes[i + 1].start, nodes[i + 1].end});
    if (it != by_span.end()) names[rows[i]] = it->second;
  }
}

// handle_range_data on the renamed rows.
void read_ranges(const frame::Frame& ranges, std::vector<Pending>& out) {
  const frame::FrameColumn* msg = frame::find_column(ranges, "msg");
  std::vector<std::string> names(ranges.rows());
  for (size_t r = 0; r < ranges.rows(); ++r)
    if (msg->cells[r].kind == frame::Cell::Kind::kText) names[r] = msg->cells[r].str();
  name_nested_ranges(ranges, names);
  const NumColumn cs(frame::find_column(ranges, "cann_start_ts")),
      ce(frame::find_column(ranges, "cann_end_ts"));
  const NumColumn ds(frame::find_column(ranges, "device_start_ts")),
      de(frame::find_column(ranges, "device_end_ts"));
  for (size_t r = 0; r < ranges.rows(); ++r) {
    Pending p;
    p.name = names[r];
    p.cann = difference(ce, cs, r);
    p.device = difference(de, ds, r);
    p.start_ns = int_at(*cs.c, r).value_or(0);
    out.push_back(std::move(p));
  }
}

struct StepSpan {
  std::optional<int64_t> id, start, end;
};

// compute_step_id: the first step (by start) whose [start, end] holds `t`; nullopt when none.
std::optional<int64_t> step_of(int64_t t, const std::vector<StepSpan>& steps) {
  for (const auto& s : steps)
    if (s.start && s.end && *s.start <= t && t <= *s.end) return s.id.value_or(0);
  return std::nullopt;
}

}  // namespace

std::string mstx_range_sql(bool with_task) {
  return range_query(with_task);
}

const char* mstx_mark_sql() {
  return kMarkQuery;
}

const char* mstx_step_sql() {
  return kStepQuery;
}

bool read_mstx_annotations(recipes::RankDb& db, std::vector<MstxAnnotation>& out,
                           io::Diagnostics& diag) {
  const std::vector<int64_t> range{0, std::numeric_limits<int64_t>::max()};
  std::vector<StepSpan> steps;
  bool whole_run = true;  // no STEP_TIME: one step 0 over the whole run
  if (db.has_table("STEP_TIME")) {
    whole_run = false;
    frame::Frame f;
    if (!answer_query(
            "mstx_sum.step_time", [&] { return scan_step_time(db.database(), kStepQuery, f); },
            [&] { return db.query(kStepQuery, {}, f, "STEP_TIME", diag); }))
      return false;
    for (size_t r = 0; r < f.rows(); ++r)
      steps.push_back({int_at(f.columns[0], r), int_at(f.columns[1], r), int_at(f.columns[2], r)});
  }
  frame::Frame marks, ranges;
  const bool with_task = db.has_table("TASK");
  const std::string range_sql = range_query(with_task);
  // The range scan gives the SQL's rows or declines, and then the SQL runs (and reports).
  std::function<bool()> range_scan;
  if (with_task)
    range_scan = [&] {
      return scan_mstx_ranges(db.database(), range_sql, range[0], range[1], ranges);
    };
  if (!answer_query(
          "mstx_sum.marks",
          [&] { return scan_mstx_marks(db.database(), kMarkQuery, range[0], range[1], marks); },
          [&] { return db.query(kMarkQuery, range, marks, "MSTX_EVENTS", diag); }) ||
      !answer_query("mstx_sum.ranges", range_scan,
                    [&] { return db.query(range_sql, range, ranges, "MSTX_EVENTS", diag); }))
    return false;
  std::vector<Pending> found;
  std::vector<std::string> unmatched;
  pair_marks(marks, found, unmatched);
  if (!unmatched.empty()) {
    std::string list;
    for (const auto& m : unmatched) list += (list.empty() ? "" : ",") + m;
    diag.warn(db.path(), 0, "mstx marks without a partner: " + list,
              "they are left out (a _start needs a _stop of the same message on its thread)");
  }
  read_ranges(ranges, found);
  size_t outside = 0;
  std::map<std::pair<int64_t, std::string>, std::vector<size_t>> same_name;
  for (const auto& p : found) {
    MstxAnnotation a{p.name, p.framework, p.cann, p.device, 0};
    if (!whole_run) {
      const auto step = step_of(p.start_ns, steps);
      a.step_id = step.value_or(0);
      outside += !step;
    }
    same_name[{a.step_id, a.name}].push_back(out.size());
    out.push_back(std::move(a));
  }
  if (outside > 0)
    diag.warn(db.path(), 0, std::to_string(outside) + " mstx annotation(s) in no STEP_TIME step",
              "they are counted as step 0");
  for (const auto& [key, idx] : same_name)
    if (idx.size() > 1)
      for (size_t i = 0; i < idx.size(); ++i)
        out[idx[i]].name = key.second + "_" + std::to_string(i);
  return true;
}

}  // namespace cs::recipes::mstx_sum
