#pragma once
// What discovery may walk into: symbolic links are followed (users link rank directories from
// elsewhere), but a link out of the input directory is said (one line for all of them), a link
// back to the input directory or above it, and a directory reached twice (a symlink loop), is
// not walked again (said once), and /proc, /sys and /dev are never entered.
//
//   WalkGuard guard("/data/job");
//   if (guard.may_enter(path)) ...;   // for every directory before listing it
//   guard.report(diag);               // at the end: at most one line per kind

#include <sys/types.h>

#include <cstddef>
#include <set>
#include <string>
#include <utility>

#include "io/diagnostics.h"

namespace cs::load {

class WalkGuard {
 public:
  // `root`: the input directory as given (-d).
  explicit WalkGuard(const std::string& root);

  // True when the directory at `path` (already known to be one) may be walked: not a system
  // directory, not reached before (same device and inode), and, for a symbolic link, not the
  // input directory or one of its ancestors. Links leading out of the input directory are
  // followed and counted.
  bool may_enter(const std::string& path, dev_t dev, ino_t ino);

  // Notes a path whose stat failed with ELOOP (a symlink loop) so that report() says it.
  void note_loop(const std::string& path);

  // Adds the warnings, one line per kind: links followed out of the input directory, loops and
  // repeated directories skipped, system directories not entered.
  void report(io::Diagnostics& diag) const;

  // True when `real` (a resolved path) is /proc, /sys or /dev or below them.
  static bool is_system_path(const std::string& real);

 private:
  struct Seen {
    size_t count = 0;
    std::string first, target;
  };
  std::string root_;  // the input directory as given (it may itself be a link)
  std::string root_real_;
  std::set<std::pair<dev_t, ino_t>> visited_;
  Seen outside_, loops_, system_;
};

}  // namespace cs::load
