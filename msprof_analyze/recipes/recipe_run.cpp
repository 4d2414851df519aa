#include "msprof_analyze/recipes/recipe_run.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>

#include "io/diagnostics_print.h"
#include "io/output_file.h"
#include "io/output_ledger.h"
#include "load/discovery.h"
#include "load/job_coverage.h"
#include "load/msprof_rank.h"
#include "load/partition.h"
#include "load/rank_data_codec.h"
#include "msprof_analyze/recipes/parked_frames.h"
#include "msprof_analyze/recipes/recipe_gather.h"
#include "msprof_analyze/recipes/recipe_registry.h"
#include "msprof_analyze/recipes/recipe_skeleton.h"
#include "runtime/allocator_tuning.h"
#include "runtime/cpu_cores.h"
#include "runtime/exit_status.h"
#include "runtime/interrupt.h"
#include "runtime/task_runner.h"

namespace cs::recipes {

namespace fs = std::filesystem;

namespace {

// The databases of a rank directory, named as msprof-analyze looks for them.
RankDbPaths db_paths_of(const load::RankEntry& e) {
  RankDbPaths p;
  p.rank = e.rank;
  p.rank_dir = e.path;
  if (e.framework == load::Framework::kMsprof) {
    // CANN msprof: the msprof_{14 digits}.db discovery chose (the newest) and
    // analyze/communication_analyzer.db, both among the entry's files.
    for (const auto& rel : e.files) {
      const fs::path f = fs::path(e.path) / rel;
      if (load::is_msprof_db_name(f.filename().string()) && rel.find('/') == std::string::npos)
        p.profiler_db = f.string();
      if (rel == "analyze/communication_analyzer.db") p.analysis_db = f.string();
    }
    return p;
  }
  // Discovery listed ASCEND_PROFILER_OUTPUT/ and kept its regular *.db files among the entry's
  // files, so they are looked up there instead of stat'ed again.
  const fs::path out = fs::path(e.path) / "ASCEND_PROFILER_OUTPUT";
  const std::string n = std::to_string(e.rank);
  auto listed = [&](const std::string& name) {
    const std::string rel = "ASCEND_PROFILER_OUTPUT/" + name;
    return std::find(e.files.begin(), e.files.end(), rel) != e.files.end();
  };
  for (const char* stem : {"ascend_pytorch_profiler_", "ascend_mindspore_profiler_"})
    if (listed(stem + n + ".db")) p.profiler_db = (out / (stem + n + ".db")).string();
  for (const char* name : {"analysis.db", "communication_analyzer.db"})
    if (listed(name)) p.analysis_db = (out / name).string();
  return p;
}

// True (with the warning) when the rank lacks a database `recipe` needs: it is skipped.
bool lacks_database(const Recipe& recipe, const RankDbPaths& paths, io::Diagnostics& diag) {
  const bool missing = (recipe.needs_profiler_db() && paths.profiler_db.empty()) ||
                       (recipe.needs_analysis_db() && paths.analysis_db.empty());
  if (missing)
    diag.warn(paths.rank_dir, 0,
              recipe.name() + ": no " +
                  (recipe.needs_analysis_db() && paths.analysis_db.empty()
                       ? "ASCEND_PROFILER_OUTPUT/analysis.db"
                       : "ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_N.db"),
              "this rank is skipped; export the profiling data with export_type db");
  return missing;
}

// Reads one rank with each recipe's map step (or says why a recipe skips the rank); with `joint`,
// one read for all of them when no recipe skips it.
void map_rank(const std::vector<const Recipe*>& recipes, const JointMap* joint,
              const load::RankEntry& entry, MappedRank& out) {
  runtime::prefer_huge_pages();  // this thread's heap (runtime/allocator_tuning.h)
  const RankDbPaths paths = db_paths_of(entry);
  const size_t n = recipes.size();
  out.parts.resize(n);
  out.diag.resize(n);
  std::vector<bool> skipped(n);
  for (size_t k = 0; k < n; ++k) {
    out.parts[k].rank = paths.rank;
    skipped[k] = lacks_database(*recipes[k], paths, out.diag[k]);
  }
  if (joint && std::find(skipped.begin(), skipped.end(), true) == skipped.end()) {
    (*joint)(paths, out.parts, out.diag);
    return;
  }
  for (size_t k = 0; k < n; ++k)
    if (!skipped[k]) out.parts[k].used = recipes[k]->map(paths, out.parts[k].frames, out.diag[k]);
}

using Unpacked = GatheredRecipe;

std::string names_list() {
  std::string s;
  for (const auto& n : recipe_names()) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// Starts cluster_analysis.db's .tmp for this run: a copy of `final_db` when it exists (the
// recipe adds its tables to it), else empty (SQLite reads an empty file as a new database).
// False with an error in diag (the .tmp removed) when it cannot be written.
bool stage_database(const std::string& final_db, io::Diagnostics& diag) {
  const std::string tmp = io::temporary_name(final_db);
  std::FILE* out = io::OutputLedger::instance().open_temporary(final_db);
  int err = out ? 0 : errno;
  if (out) {
    if (std::FILE* in = std::fopen(final_db.c_str(), "rb")) {
      std::vector<char> buf(1 << 20);
      size_t n = 0;
      while (err == 0 && (n = std::fread(buf.data(), 1, buf.size(), in)) > 0)
        if (std::fwrite(buf.data(), 1, n, out) != n) err = errno ? errno : EIO;
      if (err == 0 && std::ferror(in)) err = EIO;
      std::fclose(in);
    }
    if (std::fflush(out) != 0 && err == 0) err = errno;
    if (std::fclose(out) != 0 && err == 0) err = errno;
  }
  if (err == 0) return true;
  std::remove(tmp.c_str());
  io::OutputLedger::instance().failed(final_db);
  diag.error(final_db, 0, std::string("cannot start this run's copy (") + std::strerror(err) + ")",
             io::output_errno_hint(err));
  return false;
}

// The interrupt action of a recipe run: the .tmp files removed, one line from the root, every
// process ended with 130 / 143.
[[noreturn]] void on_interrupt(const mpi::MpiSession& mpi, const std::string& out_dir, int sig) {
  io::OutputLedger::instance().interrupted(runtime::interrupt_signal_name(sig), out_dir,
                                           mpi.is_root());
  const int code = runtime::interrupt_exit_code(sig);
  if (mpi.size() > 1) mpi.abort(code);
  std::_Exit(code);
}

// The one stderr line saying the job's metadata or rank ids name ranks that were not found
// below -d (load/job_coverage.h); none when every rank is there or --rank-list picked the
// ranks. The ranks' metadata is read on `threads` threads.
std::optional<std::string> short_of_job(const std::vector<load::RankEntry>& entries,
                                        const RecipeRunOptions& opts, int threads) {
  std::vector<load::RankData> ranks(entries.size());
  runtime::parallel_for(entries.size(), threads,
                        [&](size_t i) { ranks[i] = load::metadata_of(entries[i]); });
  const auto coverage = load::job_coverage(ranks, {}, opts.rank_filter.has_value());
  if (!coverage || coverage->missing.empty()) return std::nullopt;
  return load::short_of_job_line(opts.input_dir, *coverage);
}

// A recipe's merge done ahead of its reduce (Recipe::merge): the step writing its outputs and
// the merge's problems.
struct Merged {
  Recipe::WriteStep write;
  io::Diagnostics diag;
};

// The ranks' partial results in rank order, as the reduce takes them.
void sort_by_rank(Unpacked& all) {
  std::sort(all.parts.begin(), all.parts.end(),
            [](const RankPartial& a, const RankPartial& b) { return a.rank < b.rank; });
}

size_t used_ranks(const Unpacked& all) {
  size_t used = 0;
  for (const auto& p : all.parts) used += p.used;
  return used;
}

// Root: the merges of the recipes that split their reduce, all at once on up to `threads`
// threads (one each); a recipe with no rank used is left to its reduce, which says so.
void merge_at_once(const std::vector<const Recipe*>& recipes, std::vector<Unpacked>& all,
                   std::vector<Merged>& merged, int threads) {
  runtime::parallel_for(recipes.size(), threads, [&](size_t k) {
    sort_by_rank(all[k]);
    if (used_ranks(all[k]) == 0) return;
    merged[k].write = recipes[k]->merge(all[k].parts, 1, merged[k].diag);
  });
}

// Root: reduces one recipe's gathered results and writes its outputs; its exit status.
// `threads`: the threads this process may use. `merged`: the recipe's merge, done already
// (merge_at_once); its write step is run instead of the reduce.
int reduce_recipe(const Recipe& recipe, Unpacked& all, const std::vector<load::RankEntry>& entries,
                  const RecipeRunOptions& opts, const std::string& cluster_output_dir, int threads,
                  Merged* merged) {
  runtime::prefer_huge_pages();  // the heap the reduce fills, grown since the map
  // Whether the job has ranks not found below -d (said and exit 3, as in cluster's normal
  // mode; within -m all the main run says it): found on another thread while the reduce runs.
  std::optional<std::string> short_line;
  runtime::TaskGroup coverage;
  if (!opts.in_temporary_dir)
    coverage.run([&] { short_line = short_of_job(entries, opts, std::max(1, threads - 1)); });
  sort_by_rank(all);
  const size_t used = used_ranks(all);
  // The ranks' messages in rank order, a problem many ranks share said once.
  std::stable_sort(all.messages.begin(), all.messages.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  io::Diagnostics map_diag;
  for (auto& [rank, d] : all.messages) map_diag.add(std::move(d));
  if (!opts.silent) io::print_diagnostics_grouped(map_diag, opts.quiet);
  RecipeOutput out;
  out.cluster_output_dir = cluster_output_dir;
  out.export_type = opts.export_type;
  out.threads = threads;
  out.top_num = opts.top_num;
  out.rank_id = opts.rank_id;
  out.input_dir = opts.input_dir;
  out.bp = opts.bp;
  io::Diagnostics diag;
  std::error_code ec;
  fs::create_directories(out.dir(recipe.dir_name()), ec);
  bool wrote = false;
  // The database is written as a .tmp copy and renamed when complete (see the header).
  const std::string final_db = out.db_path(recipe.dir_name());
  // (In a text export some recipes write a database too: staged the same way, and dropped
  // when the recipe wrote nothing to it.)
  const bool staged = !opts.in_temporary_dir;
  if (ec) {
    diag.error(out.dir(recipe.dir_name()), 0, "cannot create the output directory",
               "choose another with -o");
  } else if (used > 0) {
    if (!opts.in_temporary_dir) io::OutputLedger::instance().extend(cluster_output_dir, diag);
    if (!staged || stage_database(final_db, diag)) {
      if (staged) out.db_file = io::temporary_name(final_db);
      if (merged) {
        diag.append(merged->diag);
        wrote = merged->write(out, diag);
      } else if (const Recipe::WriteStep write = recipe.merge(all.parts, threads, diag)) {
        wrote = write(out, diag);  // the reduce in its two parts, the ranks' frames taken
      } else {
        wrote = recipe.reduce(all.parts, out, diag);
      }
      std::error_code size_ec;
      const bool unused = staged && fs::file_size(out.db_file, size_ec) == 0 && !size_ec &&
                          !fs::exists(final_db, size_ec);
      if (staged && unused) {
        std::remove(out.db_file.c_str());
      } else if (staged && wrote && !diag.has_errors()) {
        wrote = io::publish_output(out.db_file, final_db, diag);
      } else if (staged) {
        std::remove(out.db_file.c_str());
        io::OutputLedger::instance().failed(final_db);
      }
    }
    if (!opts.in_temporary_dir) io::OutputLedger::instance().finish();
  }
  if (opts.write_failed && used > 0 && (ec || !wrote)) *opts.write_failed = true;
  if (!opts.silent) io::print_diagnostics_grouped(diag, opts.quiet);
  coverage.wait();
  int code = runtime::kExitOk;
  if (used == 0) {
    if (!opts.silent)
      std::fprintf(
          stderr, "clusterscope: %s: %s: no rank has the data this recipe reads \u2014 %s\n",
          opts.input_dir.c_str(), recipe.name().c_str(), recipe.missing_data_hint().c_str());
    code = runtime::kExitFatal;
  } else if (!wrote || diag.has_errors()) {
    code = runtime::kExitFatal;
  } else if (used < all.parts.size()) {
    code = opts.strict ? runtime::kExitFatal : runtime::kExitPartial;
  }
  if (code != runtime::kExitFatal && short_line) {
    io::print_message(*short_line);
    code = opts.strict ? runtime::kExitFatal : runtime::kExitPartial;
  }
  if (code != runtime::kExitFatal && !opts.quiet)
    std::printf("clusterscope: %s: %zu of %zu rank(s) used; results in %s/\n",
                recipe.name().c_str(), used, all.parts.size(), out.dir(recipe.dir_name()).c_str());
  return code;
}

// Root, db export: the FramePark of the recipes' parkable frames (msprof_analyze/recipes/
// parked_frames.h); nullptr when none can be parked, or with CS_RECIPE_PARK=off (tests: the merge
// of frames held in memory).
std::unique_ptr<FramePark> parking(const mpi::MpiSession& mpi, const RecipeRunOptions& opts,
                                   const std::vector<const Recipe*>& recipes) {
  if (!mpi.is_root() || opts.export_type != ExportType::kDb) return nullptr;
  if (const char* env = std::getenv("CS_RECIPE_PARK"); env && std::string(env) == "off")
    return nullptr;
  bool any = false;
  for (const Recipe* r : recipes) any = any || !r->parkable_frames().empty();
  return any ? std::make_unique<FramePark>(recipes) : nullptr;
}

// Runs `recipes` on the same ranks: discovered and broadcast once, each rank read once (by
// `joint` when given, else by each recipe's map step), one gather, then each recipe's reduce in
// order; each recipe's exit status.
std::vector<int> run_recipes(const mpi::MpiSession& mpi, const RecipeRunOptions& opts,
                             const std::vector<const Recipe*>& recipes, const JointMap* joint) {
  const std::string cluster_output_dir =
      (fs::path(opts.output_dir) / "cluster_analysis_output").string();
  if (!opts.in_temporary_dir) {
    runtime::install_interrupt_handlers();
    runtime::set_interrupt_action(
        [&mpi, cluster_output_dir](int sig) { on_interrupt(mpi, cluster_output_dir, sig); });
  }
  // 1. The root discovers the rank directories and broadcasts them. The root reads the listing
  // it was handed where it is (not copied: at 16,384 ranks a copy is about 5 MB); `owned` holds
  // one made here, and the others' unpacked copy.
  std::vector<load::RankEntry> owned;
  const std::vector<load::RankEntry>* listing = &owned;
  std::vector<char> buf;
  std::string fatal;
  // The root discovers alone; the others wait for it, watched (mpi/mpi_comm.h, RootAlone).
  std::optional<mpi::MpiSession::RootAlone> alone;
  alone.emplace(mpi, "discover", "discovered the rank directories");
  if (mpi.is_root()) {
    load::DiscoveryOptions dopts;
    dopts.rank_filter = opts.rank_filter;
    load::DiscoveryResult walked;
    if (!opts.discovered) walked = load::discover_ranks(opts.input_dir, dopts);
    const load::DiscoveryResult& found = opts.discovered ? *opts.discovered : walked;
    if (found.fatal || found.ranks.empty()) {
      fatal = opts.input_dir + ": no rank directory with a profiler_info_{N}.json found \u2014 " +
              "point -d at the directory holding the *_ascend_pt / *_ascend_ms directories";
      for (const auto& d : found.diag.items())
        if (d.severity == io::Severity::kError) {
          fatal = d.to_string();
          break;
        }
    }
    if (opts.discovered) {
      listing = &opts.discovered->ranks;
    } else {
      owned = std::move(walked.ranks);
    }
    buf = load::pack_rank_entries(*listing);
  }
  alone.reset();
  const bool is_fatal = mpi.any(!fatal.empty());
  if (is_fatal) {
    // Said once per recipe, as when each runs on its own.
    if (mpi.is_root() && !opts.silent)
      for (size_t k = 0; k < recipes.size(); ++k) io::print_message(fatal);
    return std::vector<int>(recipes.size(), runtime::kExitFatal);
  }
  mpi.broadcast(buf);
  if (!mpi.is_root()) owned = load::unpack_rank_entries(buf);
  std::vector<char>().swap(buf);  // (the listing packed: not needed past the broadcast)
  const std::vector<load::RankEntry>& entries = *listing;

  // 2. Every process maps its share; the root gathers the partial results.
  const auto shares = load::partition_by_bytes(entries, mpi.size());
  const int threads = runtime::threads_per_process(opts.threads, mpi.local_size());
  take_query_paths();  // counts from before this run are not its own
  // Which path answered each query, on every process (on the root, once the others' arrived).
  QueryPathCounts paths;
  const std::vector<size_t>& mine = shares[static_cast<size_t>(mpi.rank())];
  // The root parks the frames the recipes can read back on disk as it takes them (db export).
  std::unique_ptr<FramePark> park = parking(mpi, opts, recipes);
  TakePart on_take;
  if (park) on_take = [&park](size_t k, RankPartial& part) { park->park(k, part); };
  std::vector<Unpacked> all = gather_mapped(
      mpi, recipes.size(), mine.size(), threads,
      [&](size_t i, MappedRank& out) { map_rank(recipes, joint, entries[mine[i]], out); }, paths,
      on_take);
  all.resize(recipes.size());  // (empty on the other processes)
  if (park && !park->problem().empty() && !all.empty()) {
    io::Diagnostic d;
    d.severity = io::Severity::kWarning;
    d.what = "the ranks' map results could not be parked on disk (" + park->problem() +
             "): they are held in memory instead";
    d.hint = "the outputs are the same; a large job needs more memory this way";
    all[0].messages.emplace_back(-1, std::move(d));
  }
  park.reset();  // (the parked frames keep the file open)
  // A run in a temporary directory reads the listing no more: its file lists go now, before
  // the reduce builds its state (the reduce is then handed no listing).
  static const std::vector<load::RankEntry> kNoListing;
  const std::vector<load::RankEntry>* reduce_entries = &entries;
  if (opts.in_temporary_dir) {
    reduce_entries = &kNoListing;
    std::vector<load::RankEntry>().swap(owned);
    if (mpi.is_root() && opts.listing_read) opts.listing_read();
  }
  // The gather's batches and the map steps' working memory are freed: their pages go back before
  // the reduce builds its own.
  runtime::release_freed_memory();
  if (mpi.is_root() && opts.progress && !opts.quiet)
    for (const auto& line : query_path_lines(paths))
      std::fprintf(stderr, "clusterscope: %s\n", line.c_str());
  // 3. The root reduces and writes alone, recipe after recipe; the others wait for it, watched.
  // With threads to spare, the recipes that split their reduce merge at once first (one thread
  // each), then each writes in turn.
  std::vector<Merged> merged(recipes.size());
  std::vector<int> codes;
  for (size_t k = 0; k < recipes.size(); ++k) {
    int code = runtime::kExitOk;
    alone.emplace(mpi, "reduce", "reduced the ranks and wrote the results");
    if (mpi.is_root() && k == 0 && recipes.size() > 1 && threads > 1)
      merge_at_once(recipes, all, merged, threads);
    if (mpi.is_root())
      code = reduce_recipe(*recipes[k], all[k], *reduce_entries, opts, cluster_output_dir, threads,
                           merged[k].write ? &merged[k] : nullptr);
    merged[k] = Merged{};
    all[k] = Unpacked{};  // freed before the next recipe's reduce
    alone.reset();
    codes.push_back(static_cast<int>(mpi.max_idle_wait(mpi.is_root() ? code : runtime::kExitOk)));
  }
  return codes;
}

}  // namespace

bool is_recipe(const std::string& name) {
  return make_recipe(name) != nullptr;
}

int run_recipe(const mpi::MpiSession& mpi, const RecipeRunOptions& opts) {
  const auto recipe = make_recipe(opts.recipe);
  if (!recipe) {
    if (mpi.is_root())
      std::fprintf(stderr, "clusterscope: cluster: unknown recipe '%s' \u2014 use one of: %s\n",
                   opts.recipe.c_str(), names_list().c_str());
    return runtime::kExitUsage;
  }
  if (const std::string error = recipe->set_args(opts.args); !error.empty()) {
    if (mpi.is_root()) std::fprintf(stderr, "clusterscope: cluster: %s\n", error.c_str());
    return runtime::kExitUsage;
  }
  return run_recipes(mpi, opts, {recipe.get()}, nullptr).front();
}

std::vector<int> run_recipes_jointly(const mpi::MpiSession& mpi, const RecipeRunOptions& opts,
                                     const std::vector<std::string>& names, const JointMap& map) {
  std::vector<std::unique_ptr<Recipe>> owned;
  std::vector<const Recipe*> recipes;
  for (const auto& name : names) {
    owned.push_back(make_recipe(name));
    if (!owned.back()) throw std::invalid_argument("run_recipes_jointly: no recipe " + name);
    recipes.push_back(owned.back().get());
  }
  return run_recipes(mpi, opts, recipes, &map);
}

std::string RecipeOutput::dir(const std::string& recipe_dir_name) const {
  if (export_type == ExportType::kDb) return cluster_output_dir;
  return (fs::path(cluster_output_dir) / recipe_dir_name).string();
}

std::string RecipeOutput::db_path(const std::string& recipe_dir_name) const {
  if (!db_file.empty()) return db_file;
  return (fs::path(dir(recipe_dir_name)) / "cluster_analysis.db").string();
}

}  // namespace cs::recipes
