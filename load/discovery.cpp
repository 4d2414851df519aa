#include "load/discovery.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>

#include "io/input_file.h"
#include "load/msprof_rank.h"
#include "load/rank_list.h"
#include "load/run_choice.h"
#include "load/walk_guard.h"
#include "readers/profiler_info.h"
#include "runtime/cpu_cores.h"
#include "runtime/task_runner.h"

namespace cs::cluster {

namespace {

// Per-rank input files clusterscope reads, by location.
constexpr const char* kOutputFiles[] = {"communication.json",  "communication_matrix.json",
                                        "step_trace_time.csv", "kernel_details.csv",
                                        "op_statistic.csv",    "trace_view.json"};

// The DB export's files: analysis.db and the framework's profiler database (torch_npu
// ascend_pytorch_profiler_{N}.db, MindSpore ascend_mindspore_profiler_{N}.db and
// communication_analyzer.db, CANN msprof_{timestamp}.db).
// (A msprof_*.db is taken apart: only the newest msprof_{14 digits}.db is read.)
bool is_db_export_file(std::string_view n) {
  if (!n.ends_with(".db")) return false;
  return n == "analysis.db" || n == "communication_analyzer.db" ||
         n.starts_with("ascend_pytorch_profiler") || n.starts_with("ascend_mindspore_profiler");
}

std::string join(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (a.back() == '/') return a + b;
  return a + "/" + b;
}

struct StatInfo {
  bool exists = false;
  bool is_dir = false;
  bool is_file = false;
  dev_t dev = 0;
  ino_t ino = 0;
  uint64_t size = 0;
  int err = 0;  // errno when the stat failed
};

StatInfo stat_path(const std::string& path) {  // follows symlinks
  StatInfo s;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    s.err = errno;
    return s;
  }
  s.exists = true;
  s.is_dir = S_ISDIR(st.st_mode);
  s.is_file = S_ISREG(st.st_mode);
  s.dev = st.st_dev;
  s.ino = st.st_ino;
  s.size = static_cast<uint64_t>(st.st_size);
  return s;
}

// Entry names of a directory, sorted (deterministic order). False when it cannot be read.
bool list_dir(const std::string& path, std::vector<std::string>& names, int& err) {
  names.clear();
  DIR* d = ::opendir(path.c_str());
  if (!d) {
    err = errno;
    return false;
  }
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    names.push_back(std::move(n));
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return true;
}

class Walker {
 public:
  Walker(const std::string& root, const DiscoveryOptions& opts, DiscoveryResult& res)
      : opts_(opts), res_(res), guard_(root) {}

  void walk(const std::string& path, const std::string& name, int depth) {
    StatInfo st = stat_path(path);
    if (!st.exists && st.err == ELOOP) guard_.note_loop(path);
    if (!st.is_dir) return;
    if (!guard_.may_enter(path, st.dev, st.ino)) return;  // loop, alias, /proc, ...
    if (framework_from_dir_name(name) != Framework::kUnknown ||
        (depth == 0 && holds_rank_files(path))) {
      found_.push_back({path, name});  // inspected after the walk (inspect_rank_dirs)
      if (depth == 0) res_.input_is_rank_dir = true;
      return;
    }
    if (depth >= opts_.max_depth) {
      if (!depth_warned_) {
        res_.diag.warn(path, 0,
                       "directory is deeper than " + std::to_string(opts_.max_depth) +
                           " levels below the input directory; not searched",
                       "point the input directory closer to the rank directories");
        depth_warned_ = true;
      }
      return;
    }
    std::vector<std::string> names;
    int err = 0;
    if (!list_dir(path, names, err)) {
      res_.diag.warn(path, 0, "cannot read directory: " + io::errno_text(err),
                     "check its permissions; rank directories below it were not searched");
      return;
    }
    for (const auto& n : names) walk(join(path, n), n, depth + 1);
  }

  // The rank directories the walk found, in walk order: (path, name).
  const std::vector<std::pair<std::string, std::string>>& found() const { return found_; }

  // A directory the profiler wrote for one rank, whatever its name: it holds
  // ASCEND_PROFILER_OUTPUT/ or a profiler_info_{N}.json.
  static bool holds_rank_files(const std::string& path) {
    if (stat_path(join(path, "ASCEND_PROFILER_OUTPUT")).is_dir) return true;
    std::vector<std::string> names;
    int err = 0;
    if (!list_dir(path, names, err)) return false;
    for (const auto& n : names)
      if (io::rank_from_profiler_info_name(n)) return true;
    return false;
  }
  // Adds the walk's notes (links out of the input directory, loops, system directories).
  void report() { guard_.report(res_.diag); }

 private:
  const DiscoveryOptions& opts_;
  DiscoveryResult& res_;
  WalkGuard guard_;
  std::vector<std::pair<std::string, std::string>> found_;
  bool depth_warned_ = false;
};

// Reads what one rank directory holds (its rank id, output directories, files, export),
// remembering the stats and listings of the directory it inspects.
class RankDirInspector {
 public:
  explicit RankDirInspector(const DiscoveryOptions& opts) : opts_(opts) {}

  RankEntry inspect(const std::string& path, const std::string& name) {
    RankEntry e;
    e.path = path;
    e.framework = framework_from_dir_name(name);
    e.timestamp = timestamp_from_dir_name(name);

    std::vector<std::string> out_dirs;  // relative to path, preferred first
    if (e.framework == Framework::kMsprof) {
      bool analyze_has_comm = stat_path(join(path, "analyze/communication.json")).is_file;
      bool analyze = stat_path(join(path, "analyze")).is_dir;
      bool mindstudio = stat_path(join(path, "mindstudio_profiler_output")).is_dir;
      if (analyze && (analyze_has_comm || !mindstudio)) out_dirs = {"analyze"};
      if (mindstudio) out_dirs.push_back("mindstudio_profiler_output");
      if (analyze && out_dirs.front() != "analyze") out_dirs.push_back("analyze");
    } else if (stat_path(join(path, "ASCEND_PROFILER_OUTPUT")).is_dir) {
      out_dirs = {"ASCEND_PROFILER_OUTPUT"};
    }
    if (!out_dirs.empty()) e.output_dir = join(path, out_dirs.front());

    // Rank id: profiler_info_{N}.json in the rank directory root (or, failing that, in an
    // output directory, where some producers put it).
    std::vector<std::string> search = {""};
    for (const auto& d : out_dirs) search.push_back(d);
    for (const auto& rel_dir : search) {
      const auto* listed = list_once(join(path, rel_dir));
      if (!listed) continue;
      for (const auto& n : *listed) {
        auto r = io::rank_from_profiler_info_name(n);
        if (!r) continue;
        std::string rel = join(rel_dir, n);
        if (e.rank < 0) {
          e.rank = *r;
          add_file(e, rel);
        } else if (*r != e.rank) {
          e.problems.push_back("also has " + rel + " (rank " + std::to_string(*r) +
                               "); used rank " + std::to_string(e.rank));
        }
      }
      if (e.rank >= 0) break;
    }
    if (e.rank < 0 && e.framework == Framework::kMsprof) read_msprof_rank(e);
    if (is_file_in(join(path, ""), "profiler_metadata.json")) add_file(e, "profiler_metadata.json");
    bool has_text = false, has_db = false;
    for (const auto& d : out_dirs)
      for (const char* f : kOutputFiles) {
        std::string rel = join(d, f);
        if (is_file_in(join(path, d), f)) {
          add_file(e, rel);
          has_text = true;
        }
      }
    // DB files: in the output directories, and (msprof_*.db) in the rank directory itself.
    std::vector<std::string> db_dirs = out_dirs;
    if (e.framework == Framework::kMsprof) db_dirs.insert(db_dirs.begin(), "");
    for (const auto& d : db_dirs) {
      const auto* listed = list_once(join(path, d));
      if (!listed) continue;
      std::string newest_msprof;  // names are sorted: the last match is the newest
      for (const auto& n : *listed) {
        std::string rel = join(d, n);
        const bool msprof = e.framework == Framework::kMsprof && is_msprof_db_name(n);
        if ((msprof || is_db_export_file(n)) && stat_once(join(path, rel)).is_file) {
          if (msprof) {
            newest_msprof = rel;
            continue;
          }
          add_file(e, rel);
          has_db = true;
        }
      }
      if (!newest_msprof.empty()) {
        add_file(e, newest_msprof);
        has_db = true;
      }
    }
    choose_export(e, has_text, has_db);
    if (e.framework == Framework::kMsprof && e.export_type == ExportType::kText)
      add_msprof_text_files(e);  // step trace and operator statistics

    if (e.rank < 0 && !e.msprof_device) {
      e.status = RankStatus::kSkipped;
      e.problems.push_back(e.framework == Framework::kMsprof
                               ? "no profiler_info_{N}.json and no info.json.{N} in a device "
                                 "directory, so its rank is unknown"
                               : "no profiler_info_{N}.json, so its rank is unknown");
    } else if (out_dirs.empty()) {
      e.status = RankStatus::kPartial;
      e.problems.push_back(e.framework == Framework::kMsprof
                               ? "no analyze/ or mindstudio_profiler_output/ directory"
                               : "no ASCEND_PROFILER_OUTPUT/ directory");
    }
    return e;
  }

  // DB first (as msprof-analyze) unless --data-type says otherwise; a rank without the export
  // asked for is read from the other one, with a note.
  void choose_export(RankEntry& e, bool has_text, bool has_db) const {
    switch (opts_.data_type) {
      case DataType::kAuto:
        e.export_type = has_db ? ExportType::kDb : ExportType::kText;
        break;
      case DataType::kText:
        e.export_type = has_text || !has_db ? ExportType::kText : ExportType::kDb;
        if (!has_text && has_db) e.problems.push_back("no text export; read the DB export");
        break;
      case DataType::kDb:
        e.export_type = has_db || !has_text ? ExportType::kDb : ExportType::kText;
        if (!has_db && has_text) e.problems.push_back("no DB export; read the text export");
        break;
    }
  }

  void add_file(RankEntry& e, const std::string& rel) {
    for (const auto& f : e.files)
      if (f == rel) return;
    e.files.push_back(rel);
    e.bytes += stat_once(join(e.path, rel)).size;
  }

  // stat() of a path below the rank directory being inspected, once per path (cleared per rank).
  const StatInfo& stat_once(const std::string& path) {
    auto it = stats_.find(path);
    if (it == stats_.end()) it = stats_.emplace(path, stat_path(path)).first;
    return it->second;
  }
  // The sorted entry names of a directory below the rank directory being inspected, listed once
  // (cleared per rank); nullptr when it cannot be read.
  const std::vector<std::string>* list_once(const std::string& path) {
    auto it = listings_.find(path);
    if (it == listings_.end()) {
      std::vector<std::string> names;
      int err = 0;
      std::optional<std::vector<std::string>> v;
      if (list_dir(path, names, err)) v = std::move(names);
      it = listings_.emplace(path, std::move(v)).first;
    }
    return it->second ? &*it->second : nullptr;
  }
  // Whether `dir`/`name` is a regular file (following links): a name missing from the
  // directory's listing is not stat'ed.
  bool is_file_in(const std::string& dir, const std::string& name) {
    if (const auto* names = list_once(dir);
        names && !std::binary_search(names->begin(), names->end(), name))
      return false;
    return stat_once(join(dir, name)).is_file;
  }

 private:
  std::unordered_map<std::string, StatInfo> stats_;
  std::unordered_map<std::string, std::optional<std::vector<std::string>>> listings_;
  const DiscoveryOptions& opts_;
};

// Every found rank directory inspected, in order, on up to `threads` threads (the inspection is
// a few stats and listings per rank: system calls that overlap well).
std::vector<RankEntry> inspect_rank_dirs(
    const std::vector<std::pair<std::string, std::string>>& dirs, const DiscoveryOptions& opts) {
  std::vector<RankEntry> out(dirs.size());
  const int threads = opts.threads > 0 ? opts.threads : usable_cores();
  // Enough directories per thread to pay for starting it.
  const int used = static_cast<int>(
      std::min<size_t>(static_cast<size_t>(threads), std::max<size_t>(1, dirs.size() / 32)));
  runtime::parallel_for(dirs.size(), used, [&](size_t i) {
    out[i] = RankDirInspector(opts).inspect(dirs[i].first, dirs[i].second);
  });
  return out;
}

std::string base_name(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  auto slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

}  // namespace

Framework framework_from_dir_name(std::string_view name) {
  if (name.ends_with("_ascend_pt")) return Framework::kPyTorch;
  if (name.ends_with("_ascend_ms")) return Framework::kMindSpore;
  if (name.substr(0, 5) == "PROF_") return Framework::kMsprof;
  return Framework::kUnknown;
}

std::string timestamp_from_dir_name(std::string_view name) {
  Framework f = framework_from_dir_name(name);
  size_t from_end = f == Framework::kMsprof ? 2 : (f == Framework::kUnknown ? 0 : 3);
  if (from_end == 0) return {};
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t us = name.find('_', start);
    parts.push_back(name.substr(start, us == std::string_view::npos ? us : us - start));
    if (us == std::string_view::npos) break;
    start = us + 1;
  }
  // PROF_{n}_{ts}_{s} needs 4 fields; {host}_{pid}_{ts}_ascend_pt needs at least 4 too.
  if (parts.size() < 4) return {};
  return std::string(parts[parts.size() - from_end]);
}

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
  Walker walker(dir, opts, res);
  walker.walk(dir, base_name(dir), 0);
  walker.report();
  std::vector<RankEntry> found = inspect_rank_dirs(walker.found(), opts);

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

}  // namespace cs::cluster
