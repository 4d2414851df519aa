#include "msprof_analyze/db_all/recipe_verdicts.h"

#include <sqlite3.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "msprof_analyze/recipes/recipe_registry.h"
#include "msprof_analyze/recipes/recipe_run.h"

namespace fs = std::filesystem;

namespace cs::db_all {

namespace {

const std::vector<std::string> kVerdictRecipes = {"slow_rank", "slow_link", "freq_analysis"};

// Rows of `sql` on `db`, each column as text (NULL as ""); empty when the table is missing.
std::vector<std::vector<std::string>> rows_of(sqlite3* db, const char* sql) {
  std::vector<std::vector<std::string>> out;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) {
    sqlite3_finalize(st);
    return out;
  }
  while (sqlite3_step(st) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int c = 0; c < sqlite3_column_count(st); ++c) {
      const auto* text = sqlite3_column_text(st, c);
      row.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
    }
    out.push_back(std::move(row));
  }
  sqlite3_finalize(st);
  return out;
}

bool has_table(sqlite3* db, const char* name) {
  const std::string sql =
      std::string("SELECT 1 FROM sqlite_master WHERE type='table' AND name='") + name + "'";
  return !rows_of(db, sql.c_str()).empty();
}

// The recipes' tables in `path` as verdicts.
analysis::RecipeVerdicts read_verdicts(const fs::path& path) {
  analysis::RecipeVerdicts v;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return v;
  }
  v.ran = true;
  for (const auto& r : rows_of(db, "SELECT rankId, slowAffectCount FROM SlowRank"))
    v.slow_rank_votes.emplace_back(std::stoi(r[0]), std::stoll(r[1]));
  v.freq_ran = has_table(db, "FreeFrequencyRanks") || has_table(db, "AbnormalFrequencyRanks");
  for (const auto& r : rows_of(db, "SELECT rankId, aicoreFrequency FROM FreeFrequencyRanks"))
    v.idle_frequency.emplace_back(std::stoi(r[0]), r[1]);
  for (const auto& r : rows_of(db, "SELECT rankId, aicoreFrequency FROM AbnormalFrequencyRanks"))
    v.abnormal_frequency.emplace_back(std::stoi(r[0]), r[1]);
  for (const auto& r : rows_of(db,
                               "SELECT opTypeRelatedRanksDataSize, offsetRatio, maxRank, minRank "
                               "FROM SlowLinkSum")) {
    analysis::RecipeVerdicts::Link l;
    l.group = r[0];
    l.offset_ratio = r[1].empty() ? 0 : std::stod(r[1]);
    l.slowest_rank = r[2].empty() ? -1 : std::stoi(r[2]);
    l.fastest_rank = r[3].empty() ? -1 : std::stoi(r[3]);
    v.slow_links.push_back(std::move(l));
  }
  sqlite3_close(db);
  return v;
}

}  // namespace

analysis::RecipeVerdicts run_verdict_recipes(const mpi::MpiSession& mpi, ClusterDbOptions& opts) {
  const fs::path scratch =
      fs::path(opts.output_dir) / "cluster_analysis_output" / ".recipe_verdicts.tmp";
  std::error_code ec;
  if (mpi.is_root()) fs::remove_all(scratch, ec);
  recipes::RecipeRunOptions r;
  r.input_dir = opts.input_dir;
  r.output_dir = scratch.string();
  r.rank_filter = opts.rank_filter;
  r.export_type = recipes::ExportType::kDb;
  r.quiet = true;
  r.silent = true;
  r.threads = opts.threads;
  r.in_temporary_dir = true;
  // The root's listing of the job from job_has_db_export (same directory, filter and options):
  // the job is not walked again.
  r.discovered = mpi.is_root() ? opts.discovered.get() : nullptr;
  // Its file lists are not held through the reduces (the main run walks the job again).
  r.listing_read = [&opts] { opts.discovered.reset(); };
  std::vector<std::unique_ptr<recipes::Recipe>> owned;
  for (const auto& name : kVerdictRecipes) owned.push_back(recipes::make_recipe(name));
  // Each rank read once for the three, each through its own map step.
  const auto map = [&owned](const recipes::RankDbPaths& paths,
                            std::span<recipes::RankPartial> parts,
                            std::span<io::Diagnostics> diag) {
    for (size_t k = 0; k < owned.size(); ++k)
      parts[k].used = owned[k]->map(paths, parts[k].frames, diag[k]);
  };
  analysis::RecipeVerdicts v;
  recipes::run_recipes_jointly(mpi, r, kVerdictRecipes, map);
  if (mpi.is_root()) {
    const fs::path db = scratch / "cluster_analysis_output" / "cluster_analysis.db";
    if (fs::exists(db, ec)) v = read_verdicts(db);
    fs::remove_all(scratch, ec);
  }
  return v;
}

}  // namespace cs::db_all
