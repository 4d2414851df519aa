#include "fuzz/temp_input.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <system_error>

namespace cs::fuzz {

namespace {

namespace fs = std::filesystem;

// This process's directory of temporary inputs; removed when the process exits normally.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/cs-fuzz-XXXXXX";
    if (!mkdtemp(pattern.data())) std::abort();
    dir_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  const std::string& path_of(const std::string& name) {
    auto it = paths_.find(name);
    if (it == paths_.end()) it = paths_.emplace(name, dir_ + "/" + name).first;
    return it->second;
  }

 private:
  std::string dir_;
  std::map<std::string, std::string> paths_;
};

}  // namespace

const std::string& write_temp_input(const std::string& name, const uint8_t* data, size_t size) {
  static TempDir dir;
  const std::string& path = dir.path_of(name);
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  if (std::fclose(f) != 0) std::abort();
  return path;
}

}  // namespace cs::fuzz
