#pragma once
// What every recipe does the same way, written once: a profiler-database query read into a frame
// for one rank (tables present, else the rank is skipped with a warning), and a frame written as
// msprof-analyze's dump_data writes it (text: CSV in the recipe's directory; db: a table of
// cluster_analysis.db).

#include <cstdint>
#include <string>
#include <vector>

#include "db/database.h"
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

// Reads a profiler-database query msprof-analyze's exports run (step range 0..INT64_MAX) into
// out["rows"] with a Rank column; a rank without the tables is skipped with a warning. With
// `scan`, the rows are taken from it when it gives them.
bool map_profiler_query(const RankDbPaths& paths, const std::string& sql,
                        const std::vector<std::string>& tables, frame::FrameSet& out,
                        io::Diagnostics& diag, QueryScan scan = nullptr);

}  // namespace cs::recipes
