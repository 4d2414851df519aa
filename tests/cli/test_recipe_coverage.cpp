// `cluster -m <recipe>` says when the job has more ranks than were found below -d, as the normal
// mode does (issue 15, point 8): "6 of 8 ranks of the job found: 2 missing (ranks 6-7)" once on
// stderr and exit 3 (1 with --strict); --rank-list picks ranks and is not short of the job.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "cli/cli_test_util.h"

namespace fs = std::filesystem;
using cs::test::read_file;
using cs::test::run_command;
using cs::test::temp_dir;

namespace {

using cs::test::cs_command;

using cs::test::CliOutcome;
using cs::test::run_cli;

using cs::test::lines_with;

TEST(RecipeCoverage, MissingRanksOfTheJobGiveExit3InRecipeModes) {
  const fs::path dir = temp_dir("recipe_world");
  const fs::path job = dir / "job";
  // 8 ranks exported as databases; profiler_metadata.json / META_DATA say world_size 8.
  ASSERT_EQ(run_command(cs_command("generate " + job.string() +
                                   " --ranks 8 --tp 4 --steps 2 --export-type db"),
                        (dir / "gen.txt").string()),
            0)
      << read_file(dir / "gen.txt");
  const std::string args = "cluster -d " + job.string() + " -m communication_group_map";
  CliOutcome all = run_cli(dir, args + " -o " + (dir / "all").string());
  EXPECT_EQ(all.rc, 0) << all.err;
  EXPECT_EQ(all.err.find("ranks of the job found"), std::string::npos) << all.err;
  for (const auto& e : fs::directory_iterator(job))
    if (fs::exists(e.path() / "profiler_info_6.json") ||
        fs::exists(e.path() / "profiler_info_7.json"))
      fs::remove_all(e.path());
  // -m all: its database part runs two recipes, which leave the line to the main run.
  for (const std::string recipe : {"communication_group_map", "compute_op_sum", "all"}) {
    CliOutcome part = run_cli(dir, "cluster -d " + job.string() + " -m " + recipe + " -o " +
                                       (dir / ("part_" + recipe)).string());
    EXPECT_EQ(part.rc, 3) << recipe << "\n" << part.err;
    EXPECT_EQ(lines_with(part.err, "6 of 8 ranks of the job found: 2 missing (ranks 6-7)"), 1u)
        << recipe << "\n"
        << part.err;
  }
  EXPECT_EQ(run_cli(dir, args + " -o " + (dir / "s").string() + " --strict").rc, 1);
  CliOutcome picked = run_cli(dir, args + " -o " + (dir / "p").string() + " --rank-list 0-5");
  EXPECT_EQ(picked.rc, 0) << picked.err;
  EXPECT_EQ(picked.err.find("ranks of the job found"), std::string::npos) << picked.err;
  fs::remove_all(dir);
}

}  // namespace
