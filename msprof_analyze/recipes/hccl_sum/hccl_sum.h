#pragma once
// msprof-analyze's hccl_sum recipe: the durations of every rank's communication ops
// (ascend_pytorch_profiler_N.db COMMUNICATION_OP, names through STRING_IDS) described per op
// type for all ranks (HcclAllRankStats / all_stats.csv) and per rank (HcclPerRankStats /
// rank_stats.csv), the 15 op names of highest mean with the ranks of their fastest and slowest
// instance (HcclTopOpStats / top_op_stats.csv), and each group's ranks (HcclGroupNameMap /
// group_name_map.csv).

#include <cstdint>

#include "recipes/recipe.h"

#include "db/database.h"

namespace cs::recipes {

class HcclSum : public Recipe {
 public:
  std::string name() const override { return "hccl_sum"; }
  std::string dir_name() const override { return "HcclSum"; }
  bool needs_profiler_db() const override { return true; }
  bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const override;
  bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
              io::Diagnostics& diag) const override;
};

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

// hccl_sum's per-rank query (msprof-analyze's communication-op export; its start range bound as
// two parameters).
const char* hccl_sum_sql();

}  // namespace cs::recipes
