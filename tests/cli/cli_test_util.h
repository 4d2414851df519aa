#pragma once
// Helpers for end-to-end tests that run the clusterscope binary as a subprocess.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

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

// The clusterscope binary under test: kBin + " top ...".
inline const std::string kBin = CS_BINARY;

// The command line that runs the binary with `args`.
inline std::string cs_command(const std::string& args) {
  return kBin + " " + args;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The directories temp_dir handed out, removed when the test program exits, each with what the
// tests put beside it under the same name ("<dir>.log", "<dir>-job"). A child the program forks
// (a death test) leaves them alone. CS_KEEP_TEST_FILES=1 keeps everything for a look afterwards.
class TempDirCleanup {
 public:
  static TempDirCleanup& instance() {
    static TempDirCleanup cleanup;
    return cleanup;
  }
  void add(const std::filesystem::path& p) { paths_.push_back(p); }
  ~TempDirCleanup() {
    if (::getpid() != owner_ || std::getenv("CS_KEEP_TEST_FILES") != nullptr) return;
    std::error_code ec;
    std::vector<std::filesystem::path> doomed;
    for (const auto& p : paths_) {
      const std::string stem = p.filename().string();
      for (std::filesystem::directory_iterator it(p.parent_path(), ec), end; !ec && it != end;
           it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind(stem, 0) != 0) continue;
        if (name.size() == stem.size() || name[stem.size()] == '.' || name[stem.size()] == '-')
          doomed.push_back(it->path());
      }
    }
    for (const auto& d : doomed) std::filesystem::remove_all(d, ec);
  }

 private:
  TempDirCleanup() : owner_(::getpid()) {}
  pid_t owner_;
  std::vector<std::filesystem::path> paths_;
};

// A fresh empty directory under the system temp dir, unique per test process, removed (with its
// siblings of the same name) when the program exits.
inline std::filesystem::path temp_dir(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() /
           ("clusterscope-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  TempDirCleanup::instance().add(p);
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

// Expects `got` to hold every file of `expected` with the same bytes, and no other file;
// `where` names the run in the messages ("np=2").
inline void expect_same_tree(const std::map<std::string, std::string>& expected,
                             const std::map<std::string, std::string>& got,
                             const std::string& where) {
  ASSERT_EQ(got.size(), expected.size()) << where;
  for (const auto& [name, content] : expected) {
    auto it = got.find(name);
    ASSERT_NE(it, got.end()) << name << " missing at " << where;
    EXPECT_TRUE(it->second == content) << name << " differs at " << where;
  }
}

// What a run of the binary did: its exit status, stdout and stderr.
struct CliOutcome {
  int rc = -1;
  std::string out, err;
};

// Runs `clusterscope ARGS` with stdout and stderr to stdout.txt and stderr.txt in `dir`.
inline CliOutcome run_cli(const std::filesystem::path& dir, const std::string& args) {
  const std::filesystem::path o = dir / "stdout.txt", e = dir / "stderr.txt";
  CliOutcome r;
  r.rc = run_command(cs_command(args) + " >" + o.string() + " 2>" + e.string());
  r.out = read_file(o);
  r.err = read_file(e);
  return r;
}

// The lines of `text`, without their '\n'.
inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
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
