#include "msprof_analyze/recipes/communication_group_map/communication_group_map.h"

#include <simdjson.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

#include "frame/frame_ops.h"
#include "io/sqlite/table_reader.h"
#include "msprof_analyze/recipes/frame_writers.h"
#include "msprof_analyze/recipes/parked_frames.h"
#include "msprof_analyze/recipes/rank_db.h"

namespace cs::recipes::communication_group_map {

namespace {

bool is_p2p_op(const std::string& op) {
  std::string lower = op;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("send") != std::string::npos || lower.find("receive") != std::string::npos ||
         lower.find("recv") != std::string::npos;
}

std::string rank_tuple(const std::vector<int64_t>& ranks) {
  std::string s = "(";
  for (size_t i = 0; i < ranks.size(); ++i) s += (i ? "," : "") + std::to_string(ranks[i]);
  return s + ")";
}

enum class MetaRead { kFound, kNone, kAskSqlite };

// What `SELECT value FROM META_DATA WHERE name = 'parallel_group_info' LIMIT 1` gives, read
// straight from the file's pages (io/sqlite/table_reader): opening the profiler's database with
// SQLite parses its whole schema, most of the cost of this read. kFound: the value, text, in
// `out`; kNone: no table, no such row or a value that is not text (as the query would);
// kAskSqlite: the reader declined (an unusual layout or a damaged file), run the query.
MetaRead parallel_group_info_direct(const std::string& path, std::string& out) {
  std::vector<std::string> columns;
  int name_col = -1, value_col = -1;
  bool resolved = false, found = false, text = false;
  // The columns the query names, found as SQL finds them; false without them.
  auto resolve = [&] {
    name_col = io::sqlite::column_index(columns, "name");
    value_col = io::sqlite::column_index(columns, "value");
    return name_col >= 0 && value_col >= 0;
  };
  const io::sqlite::TableRead r = io::sqlite::read_table(
      path, "META_DATA", columns, [&](const std::vector<io::sqlite::StoredValue>& row) {
        if (!resolved && !(resolved = resolve())) return false;
        const io::sqlite::StoredValue& name = row[static_cast<size_t>(name_col)];
        if (name.kind != io::sqlite::StoredValue::Kind::kText ||
            name.bytes != "parallel_group_info")
          return true;
        found = true;
        const io::sqlite::StoredValue& value = row[static_cast<size_t>(value_col)];
        text = value.kind == io::sqlite::StoredValue::Kind::kText;
        if (text) out.assign(value.bytes);
        return false;
      });
  if (r == io::sqlite::TableRead::kNoTable) return MetaRead::kNone;
  // A table without the two columns: SQLite's query fails, and says so.
  if (r != io::sqlite::TableRead::kRead || !resolve()) return MetaRead::kAskSqlite;
  return found && text ? MetaRead::kFound : MetaRead::kNone;
}

// META_DATA's parallel_group_info as rows (group_name, group_id, pg_name, global_ranks).
void read_parallel_info(const std::string& db_path, frame::Frame& out, io::Diagnostics& diag) {
  out = frame::Frame{};
  auto& gname = out.add("group_name");
  auto& gid = out.add("group_id");
  auto& pg = out.add("pg_name");
  auto& granks = out.add("global_ranks");
  if (db_path.empty()) return;
  std::string info;
  switch (parallel_group_info_direct(db_path, info)) {
    case MetaRead::kNone:
      return;
    case MetaRead::kFound:
      break;
    case MetaRead::kAskSqlite: {
      recipes::RankDb db(db_path, diag);
      if (!db.ok() || !db.has_table("META_DATA")) return;
      frame::Frame meta;
      if (!db.query("SELECT value FROM META_DATA WHERE name = 'parallel_group_info' LIMIT 1", {},
                    meta, "META_DATA", diag) ||
          meta.rows() == 0 || meta.columns[0].cells[0].kind != frame::Cell::Kind::kText)
        return;
      info = meta.columns[0].cells[0].str();
      break;
    }
  }
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (parser.parse(info).get(obj) != simdjson::SUCCESS) {
    diag.warn(db_path, 0, "META_DATA: parallel_group_info is not a JSON object",
              "group ids and pg names are left empty");
    return;
  }
  for (auto field : obj) {
    const std::string id(field.key);
    std::string pg_name;
    std::vector<int64_t> ranks;
    simdjson::dom::object info;
    if (field.value.get(info) == simdjson::SUCCESS) {
      std::string_view sv;
      if (info["group_name"].get(sv) == simdjson::SUCCESS) pg_name = std::string(sv);
      simdjson::dom::array arr;
      if (info["global_ranks"].get(arr) == simdjson::SUCCESS)
        for (auto v : arr) {
          int64_t r;
          if (v.get(r) == simdjson::SUCCESS) ranks.push_back(r);
        }
    }
    std::sort(ranks.begin(), ranks.end());
    gname.push_back(frame::Cell::text(double_hash_text(id)));
    gid.push_back(frame::Cell::text(id));
    pg.push_back(frame::Cell::text(pg_name));
    granks.push_back(frame::Cell::text(rank_tuple(ranks)));
  }
}

}  // namespace

std::string double_hash_text(const std::string& s) {
  uint64_t h0 = 0, h1 = 0;
  for (unsigned char c : s) {
    h0 = (h0 * 29 + c) & 0xFFFFFFFFu;
    h1 = (h1 * 131 + c) & 0xFFFFFFFFu;
  }
  return std::to_string((h0 << 32) | h1);
}

void communication_groups_from(const RankDbPaths& paths, const frame::Frame* time_rows,
                               frame::FrameSet& out, io::Diagnostics& diag) {
  frame::Frame groups;
  auto& gname = groups.add("group_name");
  auto& rank = groups.add("rank_id");
  auto& type = groups.add("type");
  if (time_rows) {
    const frame::FrameColumn& ops = *frame::find_column(*time_rows, "hccl_op_name");
    const frame::FrameColumn& names = *frame::find_column(*time_rows, "group_name");
    std::unordered_set<std::string> seen;
    for (size_t r = 0; r < time_rows->rows(); ++r) {
      const frame::Cell& op = ops.cells[r];
      const frame::Cell& g = names.cells[r];
      const std::string t =
          op.kind == frame::Cell::Kind::kText && is_p2p_op(op.str()) ? "p2p" : "collective";
      if (!seen.insert(frame::cell_key(g) + '\x1f' + t).second) continue;
      gname.push_back(g);
      rank.push_back(frame::Cell::integer(paths.rank));
      type.push_back(frame::Cell::text(t));
    }
  }
  frame::Frame parallel;
  if (groups.rows() > 0) read_parallel_info(paths.profiler_db, parallel, diag);
  out["comm_groups"] = std::move(groups);
  out["parallel_info"] = std::move(parallel);
}

bool map_communication_groups(const RankDbPaths& paths, frame::FrameSet& out,
                              io::Diagnostics& diag) {
  recipes::RankDb db(paths.analysis_db, diag);
  if (!db.ok()) return false;
  frame::Frame rows;
  const bool has_time = db.has_table("CommAnalyzerTime");
  if (has_time && !db.query("SELECT hccl_op_name, group_name FROM CommAnalyzerTime", {}, rows,
                            "CommAnalyzerTime", diag))
    return false;
  communication_groups_from(paths, has_time ? &rows : nullptr, out, diag);
  return true;
}

bool build_group_mapping(const std::vector<RankPartial>& parts, frame::Frame& out) {
  // (type, group_name) -> ranks, in groupby's sorted order.
  struct Key {
    frame::Cell type, group;
    bool operator<(const Key& o) const {
      const int c = frame::compare_cells(type, o.type);
      return c != 0 ? c < 0 : frame::compare_cells(group, o.group) < 0;
    }
  };
  std::map<Key, std::set<int64_t>> groups;
  // Each rank's frames held or parked (msprof_analyze/recipes/parked_frames.h), one at a time.
  for_each_rank_frame(parts, "comm_groups", [&](const frame::Frame& f) {
    for (size_t r = 0; r < f.rows(); ++r) {
      const frame::Cell& g = f.columns[0].cells[r];
      if (g.is_null()) continue;
      groups[Key{f.columns[2].cells[r], g}].insert(f.columns[1].cells[r].i());
    }
  });
  if (groups.empty()) return false;
  // Parallel group info of every rank, duplicates dropped, first seen first.
  std::vector<std::vector<frame::Cell>> info_rows;
  std::set<std::string> seen;
  for_each_rank_frame(parts, "parallel_info", [&](const frame::Frame& f) {
    for (size_t r = 0; r < f.rows(); ++r) {
      std::vector<frame::Cell> row;
      std::string key;
      for (const auto& c : f.columns) {
        row.push_back(c.cells[r]);
        key += frame::cell_key(c.cells[r]) + '\x1f';
      }
      if (seen.insert(key).second) info_rows.push_back(std::move(row));
    }
  });
  out = frame::Frame{};
  auto& type = out.add("type");
  auto& rank_set = out.add("rank_set");
  auto& gname = out.add("group_name");
  auto& gid = out.add("group_id");
  auto& pg = out.add("pg_name");
  for (const auto& [key, ranks] : groups) {
    const std::string set = rank_tuple(std::vector<int64_t>(ranks.begin(), ranks.end()));
    bool matched = false;
    for (const auto& row : info_rows) {
      if (!(row[0] == key.group)) continue;
      matched = true;
      const std::string& global = row[3].str();
      const bool use_global = !global.empty() && global != "[]" && global != set;
      type.push_back(key.type);
      rank_set.push_back(frame::Cell::text(use_global ? global : set));
      gname.push_back(key.group);
      gid.push_back(row[1]);
      pg.push_back(row[2]);
    }
    if (!matched) {
      type.push_back(key.type);
      rank_set.push_back(frame::Cell::text(set));
      gname.push_back(key.group);
      gid.push_back(frame::Cell::text(""));
      pg.push_back(frame::Cell::text(""));
    }
  }
  return true;
}

bool CommunicationGroupMap::map(const RankDbPaths& paths, frame::FrameSet& out,
                                io::Diagnostics& diag) const {
  return map_communication_groups(paths, out, diag);
}

bool CommunicationGroupMap::reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                                   io::Diagnostics& diag) const {
  frame::Frame mapping;
  if (!build_group_mapping(parts, mapping)) {
    diag.warn(out.cluster_output_dir, 0, "communication_group_map: no communication group found",
              "nothing was written");
    return true;
  }
  return recipes::write_frame_sqlite(mapping, out.db_path(dir_name()), "CommunicationGroupMapping",
                                     diag);
}

bool has_parallel_group_info(const std::string& db_path) {
  std::string info;
  return !db_path.empty() && parallel_group_info_direct(db_path, info) != MetaRead::kNone;
}

}  // namespace cs::recipes::communication_group_map
