#pragma once
// What every recipe does the same way, written once: a profiler-database query read into a frame
// for one rank (tables present, else the rank is skipped with a warning), and a frame written as
// msprof-analyze's dump_data writes it (text: CSV in the recipe's directory; db: a table of
// cluster_analysis.db).

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "db/database.h"
#include "io/byte_buffer.h"
#include "msprof_analyze/recipes/rank_db.h"
#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes {

// True when `db` (the file `path`) has every table of `tables`; else one warning naming the first
// one missing, with `hint` as what to do, and false: the rank adds nothing to the recipe.
bool tables_present(
    const RankDb& db, const std::string& path, const std::vector<std::string>& tables,
    io::Diagnostics& diag,
    const std::string& hint = "this rank is skipped (it has no data for this recipe)");

// The reduce's input: the frame `key` of every rank the map used, in rank order (a rank without
// it, or with `non_empty` one without rows, is left out).
std::vector<const frame::Frame*> used_frames(const std::vector<RankPartial>& parts,
                                             const std::string& key = "rows",
                                             bool non_empty = false);

// used_frames' frames taken out of the parts (each part keeps its rank and `used`, loses the
// frame; a frame parked on disk is read back, msprof_analyze/recipes/parked_frames.h), so the
// reduce can free each rank's rows as it merges them; `ranks` (when given) gets each frame's rank.
std::vector<frame::Frame> take_used_frames(std::vector<RankPartial>& parts, const std::string& key,
                                           bool non_empty = false,
                                           std::vector<int>* ranks = nullptr);

// Writes `f` as msprof-analyze's dump_data does: text -> `file` in the recipe directory (the
// "Ns" columns converted to the recipe's unit: microseconds, or "Ms" / 1e6 for mstx_sum), db ->
// `table` of cluster_analysis.db.
bool dump_recipe_frame(const frame::Frame& f, const RecipeOutput& out, const std::string& dir_name,
                       const std::string& file, const std::string& table, io::Diagnostics& diag,
                       const std::string& unit = "Us", double factor = 1000.0);

// A scan answering a query's rows without SQLite's plan (e.g. scan_compute_ops): the query's
// exact rows for its range [lo, hi], or false and the SQL runs.
using QueryScan = bool (*)(const db::Database& db, const std::string& sql, int64_t lo, int64_t hi,
                           frame::Frame& out);

// The one place a recipe's query chooses how it is answered. `name` ("recipe.query") names the
// query; `sql` runs the recipe's SQL (and reports); `scan` (may be empty) is its hand-written
// scan, tried first when the scans are on (table_scan.h scans_enabled(), CS_RECIPE_SCANS=off
// turns them off): it gives the SQL's exact rows or declines, and then `sql` runs. The path that
// answered is counted for `name` (take_query_paths). Returns what the path that answered
// returned.
bool answer_query(const std::string& name, const std::function<bool()>& scan,
                  const std::function<bool()>& sql);

// How many ranks' reads of a query were answered by its scan and by its SQL.
struct QueryPaths {
  int64_t scan = 0;
  int64_t sql = 0;
};
using QueryPathCounts = std::map<std::string, QueryPaths>;

// This process's counts of answer_query since the last call (cleared; thread-safe).
QueryPathCounts take_query_paths();
// Adds `more` to `into` (the processes' counts merged on the root).
void add_query_paths(QueryPathCounts& into, const QueryPathCounts& more);
// The counts in a process's message to the root (msprof_analyze/recipes/recipe_run.cpp, after
// its partial results), and read back.
void pack_query_paths(const QueryPathCounts& counts, io::ByteWriter& w);
QueryPathCounts unpack_query_paths(io::ByteReader& r);
// One line per query: "query hccl_sum.communication_ops: 254 ranks by scan, 2 by SQL".
std::vector<std::string> query_path_lines(const QueryPathCounts& counts);

// Reads a profiler-database query msprof-analyze's exports run (step range 0..INT64_MAX) into
// out["rows"] with a Rank column; a rank without the tables is skipped with a warning. The query
// is answered through answer_query as `name`, with `scan` when given.
bool map_profiler_query(const RankDbPaths& paths, const std::string& name, const std::string& sql,
                        const std::vector<std::string>& tables, frame::FrameSet& out,
                        io::Diagnostics& diag, QueryScan scan = nullptr);

}  // namespace cs::recipes
