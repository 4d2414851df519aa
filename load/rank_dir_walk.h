#pragma once
// Discovery's walk: the directories below the input directory, in sorted order, down to
// --max-depth, through WalkGuard (symlink loops, links out, /proc /sys /dev); a directory named as
// a rank directory (framework_from_dir_name), or the input directory itself when it holds one
// rank's files, is a rank directory and its subtree is not searched. Internal to load/.

#include <string>
#include <utility>
#include <vector>

#include "load/discovery.h"

namespace cs::load {

// The rank directories below `root`, in walk order, as (path, directory name). Warnings (too
// deep, unreadable directories, the walk guard's notes) go to res.diag; res.input_is_rank_dir is
// set when `root` is itself one rank's directory.
std::vector<std::pair<std::string, std::string>> find_rank_dirs(const std::string& root,
                                                                const DiscoveryOptions& opts,
                                                                DiscoveryResult& res);

}  // namespace cs::load
