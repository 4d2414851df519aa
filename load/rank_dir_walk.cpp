#include "load/rank_dir_walk.h"

#include <cerrno>

#include "io/input_file.h"
#include "load/discovery_fs.h"
#include "load/walk_guard.h"
#include "readers/profiler_info.h"

namespace cs::load {

namespace {

using discovery_fs::join;
using discovery_fs::list_dir;
using discovery_fs::stat_path;
using discovery_fs::StatInfo;

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
      if (readers::rank_from_profiler_info_name(n)) return true;
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

std::string base_name(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  auto slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> find_rank_dirs(const std::string& root,
                                                                const DiscoveryOptions& opts,
                                                                DiscoveryResult& res) {
  Walker walker(root, opts, res);
  walker.walk(root, base_name(root), 0);
  walker.report();
  return walker.found();
}

}  // namespace cs::load
