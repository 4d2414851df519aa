#pragma once
// `clusterscope cluster -m <recipe>`: the root finds the rank directories and broadcasts them;
// every process reads its share of the ranks (split by bytes) with the recipe's map step, on
// --threads threads, and sends the packed partial results to the root (the root's own share stays
// as it is, not packed), which reduces them in rank order and writes msprof-analyze's outputs. The
// outputs are the same for any number of processes and threads.

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "load/discovery.h"
#include "mpi/mpi_comm.h"
#include "msprof_analyze/recipes/recipe.h"
#include "runtime/enum_names.h"

namespace cs::recipes {

// --export_type (msprof_analyze/recipes/recipe.h): db (the default: cluster_analysis.db) | text
// (<Recipe>/*.csv).
inline constexpr std::array<runtime::EnumName<ExportType>, 2> kExportTypeNames{
    {{"db", ExportType::kDb}, {"text", ExportType::kText}}};

struct RecipeRunOptions {
  std::string recipe;
  std::string input_dir;
  std::string output_dir;  // files go to OUT/cluster_analysis_output/
  std::optional<std::set<int>> rank_filter;
  ExportType export_type = ExportType::kDb;
  int top_num = -1;  // --top_num (RecipeOutput::top_num; -1: not given)
  int rank_id = 0;   // --rank_id (RecipeOutput::rank_id)
  std::string bp;    // --bp (RecipeOutput::bp)
  // A recipe's own arguments (Recipe::set_args), e.g. {"parallel_types", "dp;tp"}.
  std::map<std::string, std::string> args;
  bool strict = false;
  bool quiet = false;
  // --progress: the root also says, per query, how many ranks its scan and its SQL answered
  // (msprof_analyze/recipes/recipe_skeleton.h answer_query), one line each on stderr.
  bool progress = false;
  // Threads reading this process's ranks (--threads; 0: the cores this process may use, see
  // runtime/cpu_cores.h threads_per_process).
  int threads = 0;
  // The output directory is itself a temporary of a larger run (cluster -m all's
  // cluster_analysis.db): files are written in place, no ledger, no interrupt handling here, and
  // no line about ranks missing from the job (the larger run says it once).
  bool in_temporary_dir = false;
  // Set (on the root) when a recipe had data but its outputs could not be written (a full disk,
  // an unwritable directory), as against a recipe that found no data: the larger run must not
  // publish what it was writing into (cluster -m all's cluster_analysis.db).
  bool* write_failed = nullptr;
  // Nothing printed at all, not even errors: the run is a helper of a larger one that says the
  // job's problems itself (cluster -m all's recipe verdicts, msprof_analyze/db_all/
  // recipe_verdicts.h); the exit statuses still tell.
  bool silent = false;
  // The rank directories the root already discovered below input_dir with rank_filter (cluster
  // -m all runs two recipes on the same ranks): used instead of discovering them again.
  const load::DiscoveryResult* discovered = nullptr;
  // Called on the root once every rank is read, when the run no longer reads the listing (a run
  // in a temporary directory: its reduce does not look for ranks missing from the job): the
  // caller may free `discovered` then (at 16,384 ranks its file lists are about 11 MB, held
  // otherwise through the reduce). The run's own listing is freed at the same point.
  std::function<void()> listing_read;
};

// True when `name` is a recipe `-m` accepts.
bool is_recipe(const std::string& name);

// Collective. Returns the exit status on every process: 0 every rank used, 3 some ranks skipped
// (1 with strict), 1 nothing usable or an output could not be written. Every output goes through
// a .tmp and the output ledger (io/output_ledger.h, extended, never cleared: recipes add to a
// directory): the CSVs through io/output_file.h; cluster_analysis.db is copied to
// cluster_analysis.db.tmp (empty when there is none), the tables written there, and renamed
// over the old one when complete. SIGINT/SIGTERM: the .tmp removed, one line, exit 130/143.
int run_recipe(const mpi::MpiSession& mpi, const RecipeRunOptions& opts);

// One rank read once for several recipes (cluster -m all's two communication recipes:
// msprof_analyze/recipes/communication_sums_map.h): parts[k] and diag[k] get what recipes[k]'s own
// map step would give for this rank (parts[k].rank is set; `used`, the frames and the messages are
// the map's). Called only when no recipe skips the rank for a missing database.
using JointMap = std::function<void(const RankDbPaths& paths, std::span<RankPartial> parts,
                                    std::span<io::Diagnostics> diag)>;

// Collective. run_recipe for each of `recipes` in turn (opts.recipe is not used), with the same
// outputs, messages and exit statuses, but the ranks are discovered once, each rank is read once
// by `map` and the results go to the root in one gather; then the root reduces each recipe in
// order. Returns each recipe's exit status, on every process. Throws std::invalid_argument for a
// name that is not a recipe.
std::vector<int> run_recipes_jointly(const mpi::MpiSession& mpi, const RecipeRunOptions& opts,
                                     const std::vector<std::string>& recipes, const JointMap& map);

}  // namespace cs::recipes
