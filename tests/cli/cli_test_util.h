#pragma once
// Helpers for end-to-end tests that run the clusterscope binary as a subprocess.

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace cs::test {

// Runs a shell command; returns its exit status (or -1 when killed by a signal). stdout and
// stderr go to `log_path` when given.
inline int run_command(const std::string& cmd, const std::string& log_path = {}) {
  std::string full = cmd;
  if (!log_path.empty()) full += " >" + log_path + " 2>&1";
  int rc = std::system(full.c_str());
  if (rc == -1 || !WIFEXITED(rc)) return -1;
  return WEXITSTATUS(rc);
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh empty directory under the system temp dir, unique per test process.
inline std::filesystem::path temp_dir(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() /
           ("clusterscope-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}

// A temp_dir(name) that is removed when the test program exits. Use a function-local static:
//   const std::filesystem::path& root() { static const ScratchDir d("x"); return d.path(); }
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name) : path_(temp_dir(name)) {}
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// mpirun with the flags a root container and a 2-core machine need.
inline std::string mpirun(int np) {
  return "mpirun --allow-run-as-root --oversubscribe -np " + std::to_string(np) + " ";
}

// Generates a 16-rank job (tp 4, pp 2, 2 steps, `seed`) into `root`/input and runs `cluster` on it
// into `root`/ref (the reference contents of a complete run). Empty on success, else the log of the
// command that failed.
inline std::string generate_job_and_reference(const std::filesystem::path& root, int seed) {
  const std::string input = (root / "input").string();
  if (run_command(std::string(CS_BINARY) + " generate " + input +
                      " --ranks 16 --tp 4 --pp 2 --steps 2 --seed " + std::to_string(seed),
                  (root / "gen.log").string()) != 0)
    return "generate failed: " + read_file(root / "gen.log");
  if (run_command(std::string(CS_BINARY) + " cluster -d " + input + " -o " +
                      (root / "ref").string() + " --quiet",
                  (root / "ref.log").string()) != 0)
    return "cluster failed: " + read_file(root / "ref.log");
  return {};
}

// Every regular file below `dir`, relative path -> content.
inline std::map<std::string, std::string> read_tree(const std::filesystem::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file())
      out[std::filesystem::relative(e.path(), dir).string()] = read_file(e.path());
  return out;
}

// How many lines of `text` contain `what` ("one message per problem" checks).
inline size_t lines_with(const std::string& text, const std::string& what) {
  std::istringstream in(text);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) n += line.find(what) != std::string::npos;
  return n;
}

}  // namespace cs::test
