#include "msprof_analyze/recipes/ep_load_balance/ep_load_balance.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "frame/duration_stats.h"
#include "frame/frame_ops.h"
#include "msprof_analyze/recipes/ep_load_balance/ep_load_balance_scan.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"

namespace cs::recipes::ep_load_balance {

namespace {

// The global ranks of the first "exp" group of parallel_group_info (JSON text, minified).
const char* kExpertGroupSql =
    "SELECT json_extract(j.value, '$.global_ranks') FROM META_DATA, json_each(META_DATA.value) "
    "AS j WHERE META_DATA.name = 'parallel_group_info' AND json_extract(j.value, "
    "'$.group_name') = 'exp' LIMIT 1";

const char* kShapesSql =
    "SELECT s.value FROM COMPUTE_TASK_INFO c JOIN TASK t ON c.globalTaskId = t.globalTaskId "
    "LEFT JOIN STRING_IDS s ON s.id = c.inputShapes "
    "WHERE c.opType = (SELECT id FROM STRING_IDS WHERE value = 'GroupedMatmul') "
    "AND t.startNs >= ? AND t.endNs <= ?";

constexpr size_t kTopNum = 20;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::string strip(const std::string& s, bool quotes) {
  size_t b = 0, e = s.size();
  auto drop = [&](char c) { return quotes ? c == '"' : is_space(c); };
  while (b < e && drop(s[b])) ++b;
  while (e > b && drop(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// Python's int() of an ASCII text: spaces around, a sign, digits with single underscores.
std::optional<int64_t> python_int(const std::string& text) {
  const std::string s = strip(text, false);
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  if (i >= s.size()) return std::nullopt;
  int64_t v = 0;
  bool digit_before = false;
  for (; i < s.size(); ++i) {
    if (s[i] == '_' && digit_before && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9') {
      digit_before = false;
      continue;
    }
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    if (v > (std::numeric_limits<int64_t>::max() - 9) / 10) return std::nullopt;
    v = v * 10 + (s[i] - '0');
    digit_before = true;
  }
  return negative ? -v : v;
}

}  // namespace

std::optional<int64_t> routed_tokens(const std::string& input_shapes) {
  const std::string s = strip(input_shapes, true);
  std::vector<std::string> parts;
  size_t from = 0;
  for (size_t at = 0; at <= s.size(); ++at)
    if (at == s.size() || s[at] == ';') {
      if (at > from) parts.push_back(s.substr(from, at - from));
      from = at + 1;
    }
  if (parts.size() <= 1) return std::nullopt;
  int64_t sum = 0;
  for (size_t p = 0; p + 2 < parts.size(); ++p) {
    const auto first = python_int(parts[p].substr(0, parts[p].find(',')));
    if (!first) return std::nullopt;
    sum += *first;
  }
  return sum;
}

bool EpLoadBalance::map(const RankDbPaths& paths, frame::FrameSet& out,
                        io::Diagnostics& diag) const {
  recipes::RankDb db(paths.profiler_db, diag);
  if (!db.ok()) return false;
  for (const char* t : {"META_DATA", "COMPUTE_TASK_INFO", "TASK", "STRING_IDS"})
    if (!db.has_table(t)) {
      diag.warn(paths.profiler_db, 0, std::string("no table ") + t,
                "this rank is skipped (it has no data for this recipe)");
      return false;
    }
  frame::Frame group, shapes;
  if (!db.query("SELECT 1 FROM META_DATA WHERE name = 'parallel_group_info'", {}, group,
                "META_DATA", diag))
    return false;
  if (group.rows() == 0) {
    diag.warn(paths.profiler_db, 0, "META_DATA has no parallel_group_info",
              "this rank is skipped (profile with torch_npu's parallel group info recorded)");
    return false;
  }
  // The kernels' shapes: answered by their scan (ep_load_balance_scan.h) or by SQLite.
  const int64_t lo = 0, hi = std::numeric_limits<int64_t>::max();
  if (!db.query(kExpertGroupSql, {}, group, "META_DATA", diag) ||
      !answer_query(
          "ep_load_balance.shapes",
          [&] { return scan_grouped_matmul_shapes(db.database(), lo, hi, shapes); },
          [&] {
            return db.query(kShapesSql, {lo, hi}, shapes, "COMPUTE_TASK_INFO", diag);
          }))
    return false;
  // json_extract gives the list minified, "[0,2]": its inside is Python's ",".join(str).
  std::string ep_ranks;
  if (group.rows() > 0 && group.columns[0].cells[0].kind == frame::Cell::Kind::kText) {
    const std::string& list = group.columns[0].cells[0].str();
    if (list.size() >= 2 && list.front() == '[') ep_ranks = list.substr(1, list.size() - 2);
  }
  if (shapes.rows() == 0) {
    diag.warn(paths.profiler_db, 0, "no GroupedMatmul kernel", "this rank adds nothing");
    return false;
  }
  int64_t tokens = 0, kept = 0, dropped = 0;
  for (const frame::Cell& c : shapes.columns[0].cells) {
    const auto t = c.kind == frame::Cell::Kind::kText ? routed_tokens(c.str()) : std::nullopt;
    if (t) {
      tokens += *t;
      ++kept;
    } else {
      ++dropped;
    }
  }
  frame::Frame& f = out["rows"];
  f.add("rank").push_back(frame::Cell::integer(paths.rank));
  f.add("epRanks").push_back(frame::Cell::text(ep_ranks));
  f.add("tokens").push_back(frame::Cell::integer(tokens));
  f.add("kept").push_back(frame::Cell::integer(kept));
  f.add("dropped").push_back(frame::Cell::integer(dropped));
  return true;
}

bool EpLoadBalance::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                           io::Diagnostics& diag) const {
  if (out.export_type != ExportType::kDb) {
    diag.warn(out.cluster_output_dir, 0,
              "ep_load_balance writes nothing for --export_type text (as msprof-analyze)",
              "run it with --export_type db for the EPTokensSummary and TopEPTokensInfo tables");
    return true;
  }
  // pandas' dtype of a rank's tokens: int64; float64 when a call's shapes gave none (NaN,
  // dropped later); object when none did (all None). Concatenated: object if any rank's is,
  // else float64 if any rank's is (each rank keeps its own values in an object column).
  bool any_real = false, any_object = false;
  for (const auto& p : parts) {
    if (!p.used) continue;
    const frame::Frame& f = p.frames.at("rows");
    const bool dropped = f.columns[4].cells[0].i() > 0, none_kept = f.columns[3].cells[0].i() == 0;
    any_object = any_object || (dropped && none_kept);
    any_real = any_real || (dropped && !none_kept);
  }
  auto number = [&](int64_t v, bool rank_real) {
    return (any_object ? rank_real : any_real) ? frame::Cell::real(static_cast<double>(v))
                                               : frame::Cell::integer(v);
  };
  frame::Frame summary;
  auto& rank = summary.add("rank");
  auto& ep_ranks = summary.add("epRanks");
  auto& sums = summary.add("inputShapesSummary");
  // epRanks (sorted) -> min, max and whether either came from a float64 rank.
  std::map<std::string, std::pair<std::pair<int64_t, bool>, std::pair<int64_t, bool>>> spread;
  for (const auto& p : parts) {
    if (!p.used) continue;
    const frame::Frame& f = p.frames.at("rows");
    if (f.columns[3].cells[0].i() == 0) continue;  // every call dropped
    const int64_t tokens = f.columns[2].cells[0].i();
    const bool rank_real = f.columns[4].cells[0].i() > 0;
    rank.push_back(f.columns[0].cells[0]);
    ep_ranks.push_back(f.columns[1].cells[0]);
    sums.push_back(number(tokens, rank_real));
    const std::pair<int64_t, bool> v{tokens, rank_real};
    auto [it, added] = spread.emplace(f.columns[1].cells[0].str(), std::pair{v, v});
    if (tokens < it->second.first.first) it->second.first = v;
    if (tokens > it->second.second.first) it->second.second = v;
  }
  sums.force_object = any_object;
  frame::Frame top;
  auto& names = top.add("epRanks");
  auto& diffs = top.add("tokensDiff");
  for (const auto& [name, mm] : spread) {
    names.push_back(frame::Cell::text(name));
    diffs.push_back(number(mm.second.first - mm.first.first, mm.first.second || mm.second.second));
  }
  diffs.force_object = any_object;
  top = frame::sort_by(top, "tokensDiff", false);
  frame::find_column(top, "tokensDiff")->force_object = any_object;
  if (top.rows() > kTopNum) {
    std::vector<size_t> head(kTopNum);
    for (size_t i = 0; i < kTopNum; ++i) head[i] = i;
    top = frame::take(top, head);
  }
  return dump_recipe_frame(summary, out, dir_name(), "", "EPTokensSummary", diag) &&
         dump_recipe_frame(top, out, dir_name(), "", "TopEPTokensInfo", diag);
}

}  // namespace cs::recipes::ep_load_balance
