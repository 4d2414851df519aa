#include "msprof_analyze/recipes/computational_op_masking/computational_op_masking.h"

#include <algorithm>
#include <limits>
#include <string>

#include "frame/frame_ops.h"
#include "frame/pandas_math.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"

namespace cs::recipes::computational_op_masking {

namespace {

// Each communication op with the name its group has in META_DATA's parallel_group_info (NULL
// when the group is not listed), in msprof-analyze's default step range (two parameters).
const char* kCommunicationSql =
    "SELECT c.startNs, c.endNs, g.group_name FROM COMMUNICATION_OP c "
    "LEFT JOIN STRING_IDS s ON c.groupName = s.id "
    "LEFT JOIN (SELECT j.key AS key, json_extract(j.value, '$.group_name') AS group_name "
    "FROM META_DATA, json_each(META_DATA.value) AS j "
    "WHERE META_DATA.name = 'parallel_group_info') g ON s.value = g.key "
    "WHERE c.startNs >= ? AND c.endNs <= ?";

// Every compute task's device interval.
const char* kComputeSql =
    "SELECT task.startNs, task.endNs FROM COMPUTE_TASK_INFO t "
    "JOIN TASK task ON t.globalTaskId = task.globalTaskId "
    "WHERE task.startNs >= ? AND task.endNs <= ?";

const char* const kColumns[] = {"stepId",
                                "parallelType",
                                "stepStartTime",
                                "stepEndTime",
                                "totalCommunicationOperatorTime",
                                "timeRatioOfStepCommunicationOperator",
                                "totalTimeWithoutCommunicationBlackout",
                                "ratioOfUnmaskedCommunication"};

std::string strip(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\n\r\f\v");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\n\r\f\v") - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t from = 0;
  for (size_t at; (at = s.find(sep, from)) != std::string::npos; from = at + 1)
    parts.push_back(s.substr(from, at - from));
  parts.push_back(s.substr(from));
  return parts;
}

bool is_time(const frame::Cell& c) {
  return c.kind == frame::Cell::Kind::kInt;
}

// The intervals of the rows whose [start, end) overlaps [lo, hi).
std::vector<Interval> overlapping(const std::vector<Interval>& v, int64_t lo, int64_t hi) {
  std::vector<Interval> out;
  for (const Interval& x : v)
    if (x.end > lo && x.start < hi) out.push_back(x);
  return out;
}

struct Step {
  frame::Cell id;
  int64_t start = 0;
  int64_t end = 0;
};

}  // namespace

std::vector<ParallelType> default_parallel_types() {
  return {{"dp", "edp"}, {"edp"}, {"dp"}, {"ep"}, {"pp"}, {"mp"}, {"tp"}};
}

bool parse_parallel_types(const std::string& value, std::vector<ParallelType>& out,
                          std::string& error) {
  out.clear();
  // A blank value parses to no group, which msprof-analyze then replaces by its default.
  if (strip(value).empty()) {
    out = default_parallel_types();
    return true;
  }
  const auto groups = split(value, ';');
  for (size_t g = 0; g < groups.size(); ++g) {
    const std::string group = strip(groups[g]);
    if (group.empty()) {
      error = "empty group at position " + std::to_string(g + 1) +
              " (give names separated by ',' and groups by ';', e.g. 'dp,edp;tp', with no "
              "trailing ';')";
      return false;
    }
    ParallelType type;
    for (const std::string& name : split(group, ',')) {
      type.push_back(strip(name));
      if (type.back().empty()) {
        error = "empty name in group " + std::to_string(g + 1) + " (e.g. 'dp,edp;tp')";
        return false;
      }
    }
    out.push_back(std::move(type));
  }
  return true;
}

std::vector<Interval> merge_intervals(std::vector<Interval> v) {
  std::vector<Interval> out;
  if (v.empty()) return out;
  std::stable_sort(v.begin(), v.end(),
                   [](const Interval& a, const Interval& b) { return a.start < b.start; });
  Interval cur = v.front();
  for (const Interval& x : v) {
    if (x.start <= cur.end) {
      cur.end = std::max(cur.end, x.end);
    } else {
      out.push_back(cur);
      cur = x;
    }
  }
  out.push_back(cur);
  return out;
}

MaskedTime masked_time(const std::vector<Interval>& communication,
                       const std::vector<Interval>& compute) {
  MaskedTime t;
  const auto comm = merge_intervals(communication);
  // Merged intervals are disjoint and ascending; the empty ones cover nothing.
  std::vector<Interval> comp;
  for (const Interval& x : merge_intervals(compute))
    if (x.start < x.end) comp.push_back(x);
  size_t first = 0;
  for (const Interval& c : comm) {
    t.communication += c.end - c.start;
    if (c.start >= c.end) continue;
    int64_t covered = 0;
    while (first < comp.size() && comp[first].end <= c.start) ++first;
    for (size_t k = first; k < comp.size() && comp[k].start < c.end; ++k)
      covered += std::min(c.end, comp[k].end) - std::max(c.start, comp[k].start);
    t.uncovered += c.end - c.start - covered;
  }
  return t;
}

std::string ComputationalOpMasking::set_args(const std::map<std::string, std::string>& args) {
  auto it = args.find("parallel_types");
  if (it == args.end()) return "";
  std::string error;
  if (!parse_parallel_types(it->second, types_, error)) return "--parallel_types: " + error;
  return "";
}

bool ComputationalOpMasking::map(const RankDbPaths& paths, frame::FrameSet& out,
                                 io::Diagnostics& diag) const {
  recipes::RankDb db(paths.profiler_db, diag);
  if (!db.ok()) return false;
  for (const char* t :
       {"STEP_TIME", "COMMUNICATION_OP", "STRING_IDS", "META_DATA", "COMPUTE_TASK_INFO", "TASK"})
    if (!db.has_table(t)) {
      diag.warn(paths.profiler_db, 0, std::string("no table ") + t,
                "this rank is skipped (it has no data for this recipe)");
      return false;
    }
  const auto step_columns = db.columns("STEP_TIME");
  const bool has_id =
      std::find(step_columns.begin(), step_columns.end(), "id") != step_columns.end();
  frame::Frame steps, comm, comp;
  const int64_t lo = 0, hi = std::numeric_limits<int64_t>::max();
  if (!db.query(has_id ? "SELECT id, startNs, endNs FROM STEP_TIME"
                       : "SELECT startNs, endNs FROM STEP_TIME",
                {}, steps, "STEP_TIME", diag) ||
      !db.query(kCommunicationSql, {lo, hi}, comm, "COMMUNICATION_OP", diag) ||
      !db.query(kComputeSql, {lo, hi}, comp, "COMPUTE_TASK_INFO", diag))
    return false;
  frame::Frame result;
  for (const char* c : kColumns) result.add(c);
  out["rows"] = result;
  // msprof-analyze computes nothing for a rank without steps, communication or compute tasks.
  if (steps.rows() == 0 || comm.rows() == 0 || comp.rows() == 0) return true;

  std::vector<Step> step_list;
  const size_t s0 = has_id ? 1 : 0;
  for (size_t r = 0; r < steps.rows(); ++r) {
    const frame::Cell& b = steps.columns[s0].cells[r];
    const frame::Cell& e = steps.columns[s0 + 1].cells[r];
    if (!is_time(b) || !is_time(e)) {
      diag.warn(paths.profiler_db, 0,
                "STEP_TIME row " + std::to_string(r + 1) + " has no integer startNs/endNs",
                "this step is left out");
      continue;
    }
    step_list.push_back(
        {has_id ? steps.columns[0].cells[r] : frame::Cell::integer(static_cast<int64_t>(r)), b.i(),
         e.i()});
  }
  std::vector<Interval> comp_all;
  for (size_t r = 0; r < comp.rows(); ++r)
    if (is_time(comp.columns[0].cells[r]) && is_time(comp.columns[1].cells[r]))
      comp_all.push_back({comp.columns[0].cells[r].i(), comp.columns[1].cells[r].i()});

  for (const ParallelType& type : types_) {
    std::vector<Interval> comm_type;
    for (size_t r = 0; r < comm.rows(); ++r) {
      const frame::Cell& name = comm.columns[2].cells[r];
      if (name.kind != frame::Cell::Kind::kText ||
          std::find(type.begin(), type.end(), name.str()) == type.end())
        continue;
      if (is_time(comm.columns[0].cells[r]) && is_time(comm.columns[1].cells[r]))
        comm_type.push_back({comm.columns[0].cells[r].i(), comm.columns[1].cells[r].i()});
    }
    if (comm_type.empty()) continue;
    std::string joined;
    for (const std::string& n : type) joined += (joined.empty() ? "" : "+") + n;
    const frame::Cell type_name = frame::Cell::text(joined);
    for (const Step& s : step_list) {
      if (s.end <= s.start) continue;
      const MaskedTime t = masked_time(overlapping(comm_type, s.start, s.end),
                                       overlapping(comp_all, s.start, s.end));
      const double duration = static_cast<double>(s.end - s.start);
      const frame::Cell row[] = {
          s.id,
          type_name,
          frame::Cell::integer(s.start),
          frame::Cell::integer(s.end),
          frame::Cell::integer(t.communication),
          frame::Cell::real(static_cast<double>(t.communication) / duration),
          frame::Cell::integer(t.uncovered),
          frame::Cell::real(frame::numpy_round(static_cast<double>(t.uncovered) / duration, 5))};
      for (size_t c = 0; c < std::size(row); ++c) out["rows"].columns[c].push_back(row[c]);
    }
  }
  return true;
}

bool ComputationalOpMasking::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                                    io::Diagnostics& diag) const {
  std::vector<const frame::Frame*> frames;
  for (const auto& p : parts)
    if (p.used) frames.push_back(&p.frames.at("rows"));
  if (frames.empty()) return true;
  const frame::Frame all = frame::concat_frames(frames, frame::column_union(frames));
  if (all.rows() == 0) {
    diag.warn(out.cluster_output_dir, 0,
              "computational_op_masking: no rank has communication ops of the parallel types "
              "asked for within a step; nothing written",
              "check that META_DATA parallel_group_info names the groups (e.g. dp, tp, pp) and "
              "give them with --parallel_types, e.g. 'dp;tp;pp'");
    return true;
  }
  return dump_recipe_frame(all, out, dir_name(), "computational_operator_masking_linearity.csv",
                           "ComputationalOperatorMaskingLinearity", diag);
}

}  // namespace cs::recipes::computational_op_masking
