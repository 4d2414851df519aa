#include "load/walk_guard.h"

#include <sys/stat.h>

#include <climits>
#include <cstdlib>

namespace cs::load {

namespace {

// The resolved path ("" when it cannot be resolved).
std::string real_path(const std::string& path) {
  char* r = ::realpath(path.c_str(), nullptr);
  if (!r) return {};
  std::string s(r);
  std::free(r);
  return s;
}

// True when `path` is `dir` or below it (both resolved).
bool is_within(const std::string& path, const std::string& dir) {
  if (dir == "/") return true;
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                         path[dir.size()] == '/');
}

void count(size_t& n, std::string& first, std::string& target, const std::string& path,
           const std::string& real) {
  if (n++ == 0) first = path, target = real;
}

}  // namespace

WalkGuard::WalkGuard(const std::string& root) : root_(root), root_real_(real_path(root)) {}

bool WalkGuard::is_system_path(const std::string& real) {
  for (const char* d : {"/proc", "/sys", "/dev"})
    if (is_within(real, d)) return true;
  return false;
}

bool WalkGuard::may_enter(const std::string& path, dev_t dev, ino_t ino) {
  struct stat lst {};
  // The input directory itself may be a link (-d /data/latest): it is where the walk starts, not
  // a link back into it.
  const bool link = path != root_ && ::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode);
  const std::string real = real_path(path);
  if (!real.empty() && is_system_path(real)) {
    count(system_.count, system_.first, system_.target, path, real);
    return false;
  }
  if (link && !real.empty() && !root_real_.empty() && is_within(root_real_, real)) {
    // A link to the input directory or above it: walking it would search everything again.
    count(loops_.count, loops_.first, loops_.target, path, real);
    return false;
  }
  if (!visited_.insert({dev, ino}).second) {
    count(loops_.count, loops_.first, loops_.target, path, real);
    return false;
  }
  if (link && !real.empty() && !root_real_.empty() && !is_within(real, root_real_))
    count(outside_.count, outside_.first, outside_.target, path, real);
  return true;
}

void WalkGuard::note_loop(const std::string& path) {
  count(loops_.count, loops_.first, loops_.target, path, "");
}

void WalkGuard::report(io::Diagnostics& diag) const {
  if (outside_.count > 0)
    diag.warn(outside_.first, 0,
              "followed " + std::to_string(outside_.count) +
                  " symbolic link(s) out of the input directory (this one to " + outside_.target +
                  ")",
              "rank directories linked from elsewhere were read; check the links if that was not "
              "meant");
  if (loops_.count > 0)
    diag.warn(loops_.first, 0,
              std::to_string(loops_.count) +
                  " directory link(s) lead back to a directory already searched (a symlink loop "
                  "or a second link); not searched again",
              "each directory was searched once; remove the looping links if they are mistakes");
  if (system_.count > 0)
    diag.warn(system_.first, 0,
              std::to_string(system_.count) +
                  " path(s) lead into /proc, /sys or /dev (this one to " + system_.target +
                  "); not searched",
              "rank directories are never there; check the links");
}

}  // namespace cs::load
