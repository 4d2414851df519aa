#include "load/discovery_fs.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <utility>

namespace cs::load::discovery_fs {

std::string join(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (a.back() == '/') return a + b;
  return a + "/" + b;
}

StatInfo stat_path(const std::string& path) {
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

}  // namespace cs::load::discovery_fs
