// Issue 17, finding 10: a rank file that is there but cannot be read is not reported "missing":
// a FIFO or a symlink loop in a file's place is named as such; a file discovery listed that the
// parsing process cannot see names that process and its host.

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "load/rank_parser.h"

namespace cs::load {
namespace {

namespace fs = std::filesystem;

std::string problems(const load::RankData& d) {
  std::string s;
  for (const auto& p : d.entry.problems) s += p + "\n";
  return s;
}

TEST(RankParserAccess, FifoLoopAndInvisibleFilesAreNamed) {
  const fs::path dir = fs::temp_directory_path() / "cs_test_rank_parser_access";
  fs::remove_all(dir);
  const fs::path out = dir / "h_1_1_ascend_pt" / "ASCEND_PROFILER_OUTPUT";
  fs::create_directories(out);
  ASSERT_EQ(::mkfifo((out / "step_trace_time.csv").c_str(), 0600), 0);
  fs::create_symlink(out / "communication.json", out / "communication.json");  // ELOOP
  load::RankEntry e;
  e.rank = 3;
  e.path = (dir / "h_1_1_ascend_pt").string();
  e.output_dir = out.string();
  // Discovery (on the root) listed kernel_details.csv; this process does not see it.
  e.files = {"ASCEND_PROFILER_OUTPUT/kernel_details.csv"};
  load::ParseOptions opts;
  opts.matrix = false;
  opts.process_note = "process 2 on host n7";
  const load::RankData d = load::parse_rank(e, opts);
  const std::string p = problems(d);
  EXPECT_NE(p.find("step_trace_time.csv: unreadable (is a FIFO (named pipe), not a regular "
                   "file) (read by process 2 on host n7)"),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("communication.json: unreadable (cannot open the file: a symlink loop"),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("kernel_details.csv: listed by discovery but not visible to process 2 on "
                   "host n7"),
            std::string::npos)
      << p;
  EXPECT_EQ(p.find("step_trace_time.csv: missing"), std::string::npos) << p;
  // On the process that discovered the files, a file that is not there is just missing.
  opts.process_note.clear();
  const std::string q = problems(load::parse_rank(e, opts));
  EXPECT_NE(q.find("kernel_details.csv: missing"), std::string::npos) << q;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cs::load
