#include "load/rank_dir_layout.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "load/discovery_fs.h"
#include "load/msprof_rank.h"
#include "readers/profiler_info.h"
#include "runtime/cpu_cores.h"
#include "runtime/task_runner.h"

namespace cs::load {

namespace {

using discovery_fs::join;
using discovery_fs::list_dir;
using discovery_fs::stat_path;
using discovery_fs::StatInfo;

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
        auto r = readers::rank_from_profiler_info_name(n);
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

}  // namespace

// The inspection is a few stats and listings per rank: system calls that overlap well.
std::vector<RankEntry> inspect_rank_dirs(
    const std::vector<std::pair<std::string, std::string>>& dirs, const DiscoveryOptions& opts) {
  std::vector<RankEntry> out(dirs.size());
  const int threads = opts.threads > 0 ? opts.threads : runtime::usable_cores();
  // Enough directories per thread to pay for starting it.
  const int used = static_cast<int>(
      std::min<size_t>(static_cast<size_t>(threads), std::max<size_t>(1, dirs.size() / 32)));
  runtime::parallel_for(dirs.size(), used, [&](size_t i) {
    out[i] = RankDirInspector(opts).inspect(dirs[i].first, dirs[i].second);
  });
  return out;
}

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

}  // namespace cs::load
