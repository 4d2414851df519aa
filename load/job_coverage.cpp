#include "load/job_coverage.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "db/database.h"
#include "db/profiler_db.h"
#include "load/discovery.h"
#include "load/rank_list.h"
#include "readers/profiler_info.h"

namespace cs::load {

namespace {

// A world size beyond this is a damaged file, not a job (no job has a million ranks yet).
constexpr int64_t kMaxWorldSize = 1 << 20;

// The per-rank profiler database that holds META_DATA (formats.md §9).
bool holds_meta_data(const std::string& n) {
  return n.ends_with(".db") &&
         (n.starts_with("ascend_pytorch_profiler") || n.starts_with("ascend_mindspore_profiler") ||
          n.starts_with("msprof_"));
}

}  // namespace

std::optional<JobCoverage> job_coverage(const std::vector<RankData>& ranks,
                                        const std::vector<RankEntry>& skipped,
                                        bool ranks_filtered) {
  if (ranks_filtered) return std::nullopt;
  int64_t meta_world = 0, group_world = 0, id_world = 0;
  std::set<int> ids;
  for (const auto& r : ranks) {
    if (r.rank() >= 0) ids.insert(r.rank());
    const auto w = r.metadata.arg("world_size");
    if (w && *w > 0 && *w <= kMaxWorldSize) meta_world = std::max(meta_world, *w);
    for (const auto& g : r.metadata.parallel_groups)
      for (int gr : g.global_ranks())
        if (gr >= 0 && gr < kMaxWorldSize) group_world = std::max<int64_t>(group_world, gr + 1);
  }
  for (const auto& e : skipped)
    if (e.rank >= 0) ids.insert(e.rank);
  if (!ids.empty()) id_world = std::min<int64_t>(*ids.rbegin() + 1, kMaxWorldSize);

  JobCoverage c;
  const int64_t world = std::max({meta_world, group_world, id_world});
  if (world <= 0) return std::nullopt;
  c.world_size = static_cast<int>(world);
  c.size_known = world == meta_world || world == group_world;
  if (world == meta_world) {
    c.source = "distributed_args' world_size in profiler_metadata.json";
  } else if (world == group_world) {
    c.source = "the parallel groups in profiler_metadata.json, which name global ranks up to " +
               std::to_string(world - 1);
  } else {
    c.source = "rank ids up to " + std::to_string(world - 1) + " found";
  }
  for (int id : ids)
    if (id < world) c.found.insert(id);
  for (int r = 0; r < c.world_size; ++r)
    if (!c.found.count(r)) c.missing.insert(r);
  return c;
}

RankData metadata_of(const RankEntry& entry) {
  namespace fs = std::filesystem;
  RankData d;
  d.entry = entry;
  io::Diagnostics scratch;
  std::error_code ec;
  const fs::path json = fs::path(entry.path) / "profiler_metadata.json";
  if (fs::is_regular_file(json, ec)) {
    d.has_metadata = readers::read_profiler_metadata(json.string(), d.metadata, scratch);
    if (d.has_metadata) return d;
  }
  for (const auto& rel : entry.files) {
    const std::string n = fs::path(rel).filename().string();
    if (!holds_meta_data(n)) continue;
    auto db = db::Database::open((fs::path(entry.path) / rel).string(), scratch);
    if (db) d.has_metadata = db::read_meta_data(*db, d.metadata, scratch);
    break;
  }
  return d;
}

std::string short_of_job_line(const std::string& input_dir, const JobCoverage& c) {
  return input_dir + ": " + coverage_line(c) + " \u2014 the job's size is from " + c.source +
         "; the results cover the ranks found (copy the missing rank directories below -d for "
         "the whole job)";
}

std::string coverage_line(const JobCoverage& c) {
  std::string line = std::to_string(c.found.size()) + " of " + std::to_string(c.world_size) +
                     " ranks of the job found";
  if (c.missing.empty()) return line;
  return line + ": " + std::to_string(c.missing.size()) + " missing (rank" +
         (c.missing.size() > 1 ? "s " : " ") + format_rank_set(c.missing) + ")";
}

std::string input_output_note(const std::vector<RankData>& ranks, bool input_is_rank_dir,
                              const std::string& input_dir, const std::string& out_dir) {
  namespace fs = std::filesystem;
  auto canonical = [](const std::string& p) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(fs::absolute(p, ec), ec);
    return ec ? fs::path(p).lexically_normal() : c;
  };
  // The rank directory the results go into, if any.
  const fs::path out = canonical(out_dir);
  const RankData* inside = nullptr;
  for (const auto& r : ranks) {
    const fs::path rel = out.lexically_relative(canonical(r.entry.path));
    if (!rel.empty() && *rel.begin() != "..") {
      inside = &r;
      break;
    }
  }
  const std::string where = (fs::path(out_dir) / "").string();
  if (input_is_rank_dir) {
    const std::string rank = ranks.empty() || ranks.front().rank() < 0
                                 ? ""
                                 : " (rank " + std::to_string(ranks.front().rank()) + ")";
    std::string line = input_dir + ": is one rank's directory" + rank +
                       ", not a job's: only this rank is analysed";
    if (inside) line += "; the results go inside it, to " + where + " (as msprof-analyze does)";
    return line + " \u2014 give -d the directory that holds every rank directory" +
           (inside ? ", -o to write elsewhere" : "");
  }
  if (!inside) return {};
  return where + ": the results go inside the profiler's directory of rank " +
         std::to_string(inside->rank()) + " (" + inside->entry.path +
         ") \u2014 give -o a directory outside the rank directories";
}

}  // namespace cs::load
