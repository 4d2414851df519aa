#include "msprof_analyze/recipes/recipe_skeleton.h"

#include <limits>
#include <mutex>

#include "frame/duration_stats.h"
#include "frame/frame_ops.h"
#include "msprof_analyze/recipes/frame_writers.h"
#include "msprof_analyze/recipes/parked_frames.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/table_scan.h"

namespace cs::recipes {

bool tables_present(const RankDb& db, const std::string& path,
                    const std::vector<std::string>& tables, io::Diagnostics& diag,
                    const std::string& hint) {
  for (const auto& t : tables)
    if (!db.has_table(t)) {
      diag.warn(path, 0, "no table " + t, hint);
      return false;
    }
  return true;
}

std::vector<const frame::Frame*> used_frames(const std::vector<RankPartial>& parts,
                                             const std::string& key, bool non_empty) {
  std::vector<const frame::Frame*> frames;
  for (const auto& p : parts) {
    if (!p.used) continue;
    auto it = p.frames.find(key);
    if (it != p.frames.end() && !(non_empty && it->second.rows() == 0))
      frames.push_back(&it->second);
  }
  return frames;
}

std::vector<frame::Frame> take_used_frames(std::vector<RankPartial>& parts, const std::string& key,
                                           bool non_empty, std::vector<int>* ranks) {
  std::vector<frame::Frame> frames;
  // Room for all at once: a Frame's move may throw (its std::deque), so a growing vector would
  // copy every frame it holds at each reallocation.
  frames.reserve(parts.size());
  for (auto& p : parts) {
    if (!p.used || !has_frame(p, key) || (non_empty && frame_rows(p, key) == 0)) continue;
    frames.push_back(take_frame(p, key));  // (read back when parked on disk)
    if (ranks) ranks->push_back(p.rank);
  }
  return frames;
}

bool dump_recipe_frame(const frame::Frame& f, const RecipeOutput& out, const std::string& dir_name,
                       const std::string& file, const std::string& table, io::Diagnostics& diag,
                       const std::string& unit, double factor) {
  if (f.rows() == 0) return true;  // msprof-analyze skips empty frames
  if (out.export_type == ExportType::kDb)
    return recipes::write_frame_sqlite(f, out.db_path(dir_name), table, diag, out.threads);
  return recipes::write_frame_csv(frame::convert_unit(f, unit, factor),
                                  out.dir(dir_name) + "/" + file, diag);
}

namespace {

std::mutex g_paths_mutex;
QueryPathCounts g_paths;  // answer_query's counts in this process, guarded by g_paths_mutex

}  // namespace

bool answer_query(const std::string& name, const std::function<bool()>& scan,
                  const std::function<bool()>& sql) {
  const bool by_scan = scan && scans_enabled() && scan();
  {
    const std::lock_guard<std::mutex> lock(g_paths_mutex);
    QueryPaths& c = g_paths[name];
    ++(by_scan ? c.scan : c.sql);
  }
  return by_scan || sql();
}

QueryPathCounts take_query_paths() {
  const std::lock_guard<std::mutex> lock(g_paths_mutex);
  QueryPathCounts out;
  out.swap(g_paths);
  return out;
}

void add_query_paths(QueryPathCounts& into, const QueryPathCounts& more) {
  for (const auto& [name, c] : more) {
    into[name].scan += c.scan;
    into[name].sql += c.sql;
  }
}

std::vector<std::string> query_path_lines(const QueryPathCounts& counts) {
  std::vector<std::string> lines;
  for (const auto& [name, c] : counts)
    lines.push_back("query " + name + ": " + std::to_string(c.scan) + " ranks by scan, " +
                    std::to_string(c.sql) + " by SQL");
  return lines;
}

void pack_query_paths(const QueryPathCounts& counts, io::ByteWriter& w) {
  w.put<uint32_t>(static_cast<uint32_t>(counts.size()));
  for (const auto& [name, c] : counts) {
    w.str(name);
    w.put<int64_t>(c.scan);
    w.put<int64_t>(c.sql);
  }
}

QueryPathCounts unpack_query_paths(io::ByteReader& r) {
  QueryPathCounts counts;
  const auto n = r.get<uint32_t>();
  for (uint32_t i = 0; i < n; ++i) {
    QueryPaths& c = counts[r.str()];
    c.scan += r.get<int64_t>();
    c.sql += r.get<int64_t>();
  }
  return counts;
}

bool map_profiler_query(const RankDbPaths& paths, const std::string& name, const std::string& sql,
                        const std::vector<std::string>& tables, frame::FrameSet& out,
                        io::Diagnostics& diag, QueryScan scan) {
  recipes::RankDb db(paths.profiler_db, diag);
  if (!db.ok()) return false;
  if (!tables_present(db, paths.profiler_db, tables, diag)) return false;
  frame::Frame rows;
  const int64_t lo = 0, hi = std::numeric_limits<int64_t>::max();
  std::function<bool()> by_scan;
  if (scan) by_scan = [&] { return scan(db.database(), sql, lo, hi, rows); };
  if (!answer_query(name, by_scan, [&] {
        return db.query(sql, {lo, hi}, rows, tables.front(), diag);
      }))
    return false;
  if (rows.rows() == 0) {
    diag.warn(paths.profiler_db, 0, "no rows in " + tables.front(), "this rank adds nothing");
    return false;
  }
  frame::assign(rows, "Rank", frame::Cell::integer(paths.rank));
  out["rows"] = std::move(rows);
  return true;
}

}  // namespace cs::recipes
