#include "recipes/recipe_run.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "io/diagnostics_print.h"
#include "load/discovery.h"
#include "load/partition.h"
#include "load/rank_data_codec.h"
#include "recipes/recipe_registry.h"
#include "runtime/exit_status.h"

namespace cs::recipes {

namespace fs = std::filesystem;

namespace {

// The databases of a rank directory, named as msprof-analyze looks for them.
RankDbPaths db_paths_of(const cluster::RankEntry& e) {
  RankDbPaths p;
  p.rank = e.rank;
  p.rank_dir = e.path;
  const fs::path out = fs::path(e.path) / "ASCEND_PROFILER_OUTPUT";
  const std::string n = std::to_string(e.rank);
  std::error_code ec;
  for (const char* stem : {"ascend_pytorch_profiler_", "ascend_mindspore_profiler_"}) {
    const fs::path db = out / (stem + n + ".db");
    if (fs::is_regular_file(db, ec)) p.profiler_db = db.string();
  }
  for (const char* name : {"analysis.db", "communication_analyzer.db"}) {
    const fs::path db = out / name;
    if (fs::is_regular_file(db, ec)) p.analysis_db = db.string();
  }
  return p;
}

void pack_partial(const RankPartial& p, const io::Diagnostics& diag, io::ByteWriter& w) {
  w.put<int32_t>(p.rank);
  w.put<uint8_t>(p.used);
  w.put<uint32_t>(static_cast<uint32_t>(diag.items().size()));
  for (const auto& d : diag.items()) {
    w.put<uint8_t>(d.severity == io::Severity::kError);
    w.str(d.to_string());
  }
  pack_frame_set(p.frames, w);
}

// Reads this process's share of the ranks into one buffer.
std::vector<char> map_share(const Recipe& recipe, const std::vector<cluster::RankEntry>& entries,
                            const std::vector<size_t>& mine) {
  io::ByteWriter w;
  w.data().reserve(4096);  // also spares GCC 12 a false -Wstringop-overflow on the first put
  w.put<uint32_t>(static_cast<uint32_t>(mine.size()));
  for (size_t idx : mine) {
    const RankDbPaths paths = db_paths_of(entries[idx]);
    RankPartial part;
    part.rank = paths.rank;
    io::Diagnostics diag;
    const bool missing = (recipe.needs_profiler_db() && paths.profiler_db.empty()) ||
                         (recipe.needs_analysis_db() && paths.analysis_db.empty());
    if (missing) {
      diag.warn(paths.rank_dir, 0,
                recipe.name() + ": no " +
                    (recipe.needs_analysis_db() && paths.analysis_db.empty()
                         ? "ASCEND_PROFILER_OUTPUT/analysis.db"
                         : "ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_N.db"),
                "this rank is skipped; export the profiling data with export_type db");
    } else {
      part.used = recipe.map(paths, part.frames, diag);
    }
    pack_partial(part, diag, w);
  }
  return std::move(w.data());
}

struct Unpacked {
  std::vector<RankPartial> parts;
  std::vector<std::pair<bool, std::string>> messages;  // (is error, line)
};

void unpack_share(const std::vector<char>& buf, Unpacked& out) {
  io::ByteReader r(buf);
  const auto n = r.get<uint32_t>();
  for (uint32_t i = 0; i < n; ++i) {
    RankPartial p;
    p.rank = r.get<int32_t>();
    p.used = r.get<uint8_t>() != 0;
    const auto nd = r.get<uint32_t>();
    for (uint32_t k = 0; k < nd; ++k) {
      const bool err = r.get<uint8_t>() != 0;
      out.messages.emplace_back(err, r.str());
    }
    p.frames = unpack_frame_set(r);
    out.parts.push_back(std::move(p));
  }
}

std::string names_list() {
  std::string s;
  for (const auto& n : recipe_names()) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

bool is_recipe(const std::string& name) {
  return make_recipe(name) != nullptr;
}

int run_recipe(const cluster::MpiSession& mpi, const RecipeRunOptions& opts) {
  const auto recipe = make_recipe(opts.recipe);
  if (!recipe) {
    if (mpi.is_root())
      std::fprintf(stderr, "clusterscope: cluster: unknown recipe '%s' \u2014 use one of: %s\n",
                   opts.recipe.c_str(), names_list().c_str());
    return kExitUsage;
  }
  // 1. The root discovers the rank directories and broadcasts them.
  std::vector<cluster::RankEntry> entries;
  std::vector<char> buf;
  std::string fatal;
  if (mpi.is_root()) {
    cluster::DiscoveryOptions dopts;
    dopts.rank_filter = opts.rank_filter;
    cluster::DiscoveryResult found = cluster::discover_ranks(opts.input_dir, dopts);
    if (found.fatal || found.ranks.empty()) {
      fatal = opts.input_dir + ": no rank directory with a profiler_info_{N}.json found \u2014 " +
              "point -d at the directory holding the *_ascend_pt / *_ascend_ms directories";
      for (const auto& d : found.diag.items())
        if (d.severity == io::Severity::kError) {
          fatal = d.to_string();
          break;
        }
    }
    entries = std::move(found.ranks);
    buf = cluster::pack_rank_entries(entries);
  }
  const bool is_fatal = mpi.any(!fatal.empty());
  if (is_fatal) {
    if (mpi.is_root()) io::print_message(fatal);
    return kExitFatal;
  }
  mpi.broadcast(buf);
  if (!mpi.is_root()) entries = cluster::unpack_rank_entries(buf);

  // 2. Every process maps its share; the root gathers the partial results.
  const auto shares = cluster::partition_by_bytes(entries, mpi.size());
  const std::vector<char> mine =
      map_share(*recipe, entries, shares[static_cast<size_t>(mpi.rank())]);
  int code = kExitOk;
  if (mpi.is_root()) {
    Unpacked all;
    unpack_share(mine, all);
    mpi.gather_to_root_each(mine, [&](int, std::vector<char>&& b) { unpack_share(b, all); });
    std::sort(all.parts.begin(), all.parts.end(),
              [](const RankPartial& a, const RankPartial& b) { return a.rank < b.rank; });
    size_t used = 0;
    for (const auto& p : all.parts) used += p.used;
    for (const auto& [err, line] : all.messages)
      if (err || !opts.quiet) io::print_message(line);
    RecipeOutput out;
    out.cluster_output_dir = (fs::path(opts.output_dir) / "cluster_analysis_output").string();
    out.export_type = opts.export_type;
    io::Diagnostics diag;
    std::error_code ec;
    fs::create_directories(out.dir(recipe->dir_name()), ec);
    bool wrote = false;
    if (ec) {
      diag.error(out.dir(recipe->dir_name()), 0, "cannot create the output directory",
                 "choose another with -o");
    } else if (used > 0) {
      wrote = recipe->reduce(all.parts, out, diag);
    }
    for (const auto& d : diag.items())
      if (d.severity == io::Severity::kError || !opts.quiet) io::print_message(d.to_string());
    if (used == 0) {
      std::fprintf(stderr,
                   "clusterscope: %s: %s: no rank has the data this recipe reads \u2014 %s\n",
                   opts.input_dir.c_str(), recipe->name().c_str(),
                   "export the profiling data with export_type db");
      code = kExitFatal;
    } else if (!wrote || diag.has_errors()) {
      code = kExitFatal;
    } else if (used < all.parts.size()) {
      code = opts.strict ? kExitFatal : kExitPartial;
    }
    if (code != kExitFatal && !opts.quiet)
      std::printf("clusterscope: %s: %zu of %zu rank(s) used; results in %s/\n",
                  recipe->name().c_str(), used, all.parts.size(),
                  out.dir(recipe->dir_name()).c_str());
  } else {
    mpi.gather_to_root_each(mine, [](int, std::vector<char>&&) {});
  }
  return static_cast<int>(mpi.max_idle_wait(mpi.is_root() ? code : kExitOk));
}

std::string RecipeOutput::dir(const std::string& recipe_dir_name) const {
  if (export_type == ExportType::kDb) return cluster_output_dir;
  return (fs::path(cluster_output_dir) / recipe_dir_name).string();
}

std::string RecipeOutput::db_path(const std::string& recipe_dir_name) const {
  return (fs::path(dir(recipe_dir_name)) / "cluster_analysis.db").string();
}

}  // namespace cs::recipes
