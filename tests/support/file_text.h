#pragma once
// Files read and written whole (also through support/test_files.h). Standard library only, so
// that test folders that link none of our libraries (tests/support) can use it too.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace cs::test {

// The whole file (empty when it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Writes `text` to `p`, its directories created.
inline void write_file(const std::filesystem::path& p, const std::string& text) {
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

}  // namespace cs::test
