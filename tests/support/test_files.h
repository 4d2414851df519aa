#pragma once
// Small helpers every test folder shares (once copied into each test): a temporary directory,
// files written and read whole, shell commands with their output, diagnostics as text.
//
//   cs::test::TempDir t("cs_discovery");          // mkdtemp under the temp dir, removed at the end
//   t.file("a/b.json", "{}");                      // written, directories created
//   std::string out;
//   int rc = cs::test::run_capture("ls " + t.str(), out);  // stdout + stderr, exit status

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "io/diagnostics.h"
#include "support/file_text.h"  // slurp, write_file

namespace cs::test {

// A fresh directory under the system temp dir ("<prefix>_XXXXXX"), removed with its contents
// when the object goes.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "cs_test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
    if (::mkdtemp(tmpl.data())) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }
  // Writes `content` to <dir>/<rel> (its directories created); returns the file's path.
  std::string file(const std::string& rel, const std::string& content) const {
    const std::filesystem::path p = path_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }
  // Creates <dir>/<rel>; returns its path.
  std::string dir(const std::string& rel) const {
    std::filesystem::create_directories(path_ / rel);
    return (path_ / rel).string();
  }

 private:
  std::filesystem::path path_;
};

// Runs a shell command; `out` gets what it writes to stdout (add " 2>&1" for stderr too).
// Returns its exit status, -1 when it did not exit normally.
inline int run_capture(const std::string& cmd, std::string& out) {
  out.clear();
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int st = ::pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// run_capture with stderr merged into `out`.
inline int run_merged(const std::string& cmd, std::string& out) {
  return run_capture(cmd + " 2>&1", out);
}

// run_capture's stdout alone.
inline std::string run_stdout(const std::string& cmd) {
  std::string out;
  run_capture(cmd, out);
  return out;
}

// Every diagnostic as text, one per line.
inline std::string all_diags(const io::Diagnostics& d) {
  std::string s;
  for (const auto& x : d.items()) s += x.to_string() + "\n";
  return s;
}

}  // namespace cs::test
