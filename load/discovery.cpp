#include "load/discovery.h"

#include <cerrno>
#include <cstdlib>
#include <map>
#include <utility>

#include "io/input_file.h"
#include "load/discovery_fs.h"
#include "load/msprof_rank.h"
#include "load/rank_dir_layout.h"
#include "load/rank_dir_walk.h"
#include "load/rank_list.h"
#include "load/run_choice.h"
#include "load/walk_guard.h"

namespace cs::load {

using discovery_fs::stat_path;
using discovery_fs::StatInfo;

DiscoveryResult discover_ranks(const std::string& dir, const DiscoveryOptions& opts) {
  DiscoveryResult res;
  StatInfo st = stat_path(dir);
  if (!st.exists) {
    if (st.err == ENOENT)
      res.diag.error(dir, 0, "no such directory", "check the path given with -d");
    else
      res.diag.error(dir, 0, "cannot open the directory: " + io::errno_text(st.err),
                     io::errno_hint(st.err));
    res.fatal = true;
    return res;
  }
  if (!st.is_dir) {
    res.diag.error(dir, 0, "not a directory",
                   "give the directory that holds the rank directories (*_ascend_pt, ...)");
    res.fatal = true;
    return res;
  }

  if (const char* r = ::realpath(dir.c_str(), nullptr)) {
    const bool system = WalkGuard::is_system_path(r);
    std::free(const_cast<char*>(r));
    if (system) {
      res.diag.error(dir, 0, "is in /proc, /sys or /dev, where no profile can be",
                     "give the directory that holds the rank directories (*_ascend_pt, ...)");
      res.fatal = true;
      return res;
    }
  }
  std::vector<RankEntry> found = inspect_rank_dirs(find_rank_dirs(dir, opts, res), opts);

  // PyTorch and MindSpore together: one job cannot have both.
  const RankEntry* pt = nullptr;
  const RankEntry* ms = nullptr;
  for (const auto& e : found) {
    if (e.framework == Framework::kPyTorch && !pt) pt = &e;
    if (e.framework == Framework::kMindSpore && !ms) ms = &e;
  }
  if (pt && ms) {
    res.diag.error(
        dir, 0,
        "found both PyTorch (" + pt->path + ") and MindSpore (" + ms->path + ") rank directories",
        "analyse one framework at a time: give a directory holding only one kind");
    res.fatal = true;
    return res;
  }

  number_msprof_ranks(found, dir, res.diag);

  // One directory per rank: readable beats unreadable, then the newest real timestamp wins.
  std::map<int, size_t> best;  // rank -> index into found
  std::map<size_t, RunTime> times;
  auto time_of = [&](size_t i) -> const RunTime& {
    auto it = times.find(i);
    if (it == times.end()) it = times.emplace(i, run_time_of(found[i])).first;
    return it->second;
  };
  std::vector<bool> dropped(found.size(), false);
  std::vector<std::string> kept_why, undecided;
  for (size_t i = 0; i < found.size(); ++i) {
    RankEntry& e = found[i];
    if (e.rank < 0) continue;
    if (opts.rank_filter && !opts.rank_filter->count(e.rank)) continue;
    auto [it, inserted] = best.emplace(e.rank, i);
    if (inserted) continue;
    std::string why;
    RunChoice c = choose_run(found[it->second], time_of(it->second), e, time_of(i), why);
    if (c == RunChoice::kUndecided) {
      undecided.push_back("rank " + std::to_string(e.rank) + ": " + why);
      continue;
    }
    size_t keep = c == RunChoice::kFirst ? it->second : i;
    size_t drop = c == RunChoice::kFirst ? i : it->second;
    it->second = keep;
    dropped[drop] = true;
    found[drop].status = RankStatus::kSkipped;
    found[drop].problems.push_back("another run of rank " + std::to_string(e.rank) + ": " + why);
    kept_why.push_back("rank " + std::to_string(e.rank) + ": " + why);
  }
  if (!undecided.empty()) {
    std::string list;
    for (size_t k = 0; k < undecided.size() && k < 4; ++k) list += (k ? "; " : "") + undecided[k];
    if (undecided.size() > 4) list += "; and " + std::to_string(undecided.size() - 4) + " more";
    res.diag.error(
        dir, 0, "several runs of the same rank and no timestamp to tell which is newest: " + list,
        "point -d at one run's directories, or move the other runs away");
    res.fatal = true;
    return res;
  }
  if (!kept_why.empty()) {
    res.diag.warn(dir, 0,
                  std::to_string(kept_why.size()) +
                      " rank(s) found in more than one run; the newest readable run of each was "
                      "kept (" +
                      kept_why.front() + (kept_why.size() > 1 ? "; ..." : "") + ")",
                  "the others are listed as skipped in rank_manifest.csv; remove the older runs "
                  "to silence this");
  }

  size_t no_rank = 0;
  std::string first_no_rank;
  for (size_t i = 0; i < found.size(); ++i) {
    RankEntry& e = found[i];
    if (e.rank < 0) {
      if (++no_rank == 1) first_no_rank = e.path;
      res.skipped.push_back(std::move(e));
    } else if (dropped[i]) {
      res.skipped.push_back(std::move(e));
    } else if (opts.rank_filter && !opts.rank_filter->count(e.rank)) {
      ++res.filtered_out;
    } else {
      res.ranks.push_back(std::move(e));
    }
  }
  if (no_rank > 0)  // one message for all of them; each is a manifest row
    res.diag.warn(first_no_rank, 0,
                  no_rank == 1 ? "no profiler_info_{N}.json in this rank directory; skipped"
                               : std::to_string(no_rank) +
                                     " rank directories have no profiler_info_{N}.json (this is "
                                     "the first); skipped",
                  "copy the whole rank directory, including profiler_info_{N}.json");
  std::sort(res.ranks.begin(), res.ranks.end(),
            [](const RankEntry& a, const RankEntry& b) { return a.rank < b.rank; });

  if (opts.rank_filter) {  // ranks asked for that no directory holds
    std::set<int> present;
    for (const auto& e : found)
      if (e.rank >= 0) present.insert(e.rank);
    std::set<int> absent;
    for (int r : *opts.rank_filter)
      if (!present.count(r)) absent.insert(r);
    if (!absent.empty())
      res.diag.warn(dir, 0,
                    "--rank-list names rank(s) " + format_rank_set(absent) +
                        " that are not in the data (ranks present: " +
                        (present.empty() ? std::string("none") : format_rank_set(present)) + ")",
                    "give ranks that exist; the others were analysed");
  }
  if (res.ranks.empty()) {
    std::string skipped;
    for (size_t k = 0; k < res.skipped.size() && k < 5; ++k)
      skipped += (k ? "; " : "") + res.skipped[k].path + " (" +
                 (res.skipped[k].problems.empty() ? "skipped" : res.skipped[k].problems.front()) +
                 ")";
    if (res.skipped.size() > 5)
      skipped += "; and " + std::to_string(res.skipped.size() - 5) + " more";
    res.diag.error(dir, 0,
                   found.empty() ? "no rank directories (*_ascend_pt, *_ascend_ms, PROF_*) found"
                   : skipped.empty() ? "no usable rank directory found"
                                     : "no usable rank directory found; skipped: " + skipped,
                   opts.rank_filter && res.filtered_out > 0
                       ? "check --rank-list against the ranks present"
                       : "check the path: it should hold the profiler's per-rank directories");
    res.fatal = true;
  }
  return res;
}

}  // namespace cs::load
