#pragma once
// The file-system calls discovery makes: stat() following links, sorted directory listings, path
// joining. Internal to load/ (discovery's walk and its inspection of each rank directory).

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cs::load::discovery_fs {

// Joins a directory and a name with one '/' ("" + b is b).
std::string join(const std::string& a, const std::string& b);

struct StatInfo {
  bool exists = false;
  bool is_dir = false;
  bool is_file = false;
  dev_t dev = 0;
  ino_t ino = 0;
  uint64_t size = 0;
  int err = 0;  // errno when the stat failed
};

// stat() of a path, following symlinks.
StatInfo stat_path(const std::string& path);

// Entry names of a directory, sorted (deterministic order). False when it cannot be read.
bool list_dir(const std::string& path, std::vector<std::string>& names, int& err);

}  // namespace cs::load::discovery_fs
