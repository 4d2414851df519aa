// Mistakes people make get a clear answer (issue 15, point 8), run on the real binary: fewer
// rank directories than the job has, -d at one rank's directory, generate into a non-empty
// directory, merge without timelines / with an --align nobody has / with -o a directory, and top's
// option errors. Each checks the exit status and the stderr line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"

namespace fs = std::filesystem;
using cs::test::read_file;
using cs::test::run_command;
using cs::test::temp_dir;

namespace {

// The real 2-rank torch_npu job (ascend-real/text_level1): no world_size in its metadata.
const std::string kRealJob = std::string(CS_TEST_DATA) + "/text_level1";

using cs::test::cs_command;

// Runs clusterscope with stdout and stderr to separate files.
using cs::test::CliOutcome;
using cs::test::run_cli;

using cs::test::lines_with;

// The rank directory of rank `r` below a generated job (it holds profiler_info_r.json).
fs::path rank_dir(const fs::path& job, int r) {
  for (const auto& e : fs::directory_iterator(job))
    if (fs::exists(e.path() / ("profiler_info_" + std::to_string(r) + ".json"))) return e.path();
  return {};
}

// A generated job (profiler_metadata.json says world_size = ranks).
fs::path generate_world_job(const fs::path& dir, int ranks, const std::string& extra = "") {
  const fs::path job = dir / "job";
  const std::string log = (dir / "gen.txt").string();
  EXPECT_EQ(
      run_command(
          cs_command("generate " + job.string() + " --ranks " + std::to_string(ranks) + " --tp 4 " +
                     (extra.find("--steps") == std::string::npos ? "--steps 2 " : "") + extra),
          log),
      0)
      << read_file(log);
  return job;
}

TEST(MistakesAnswered, FewerRankDirectoriesThanTheJobSaidAndExit3) {
  const fs::path dir = temp_dir("mist_world");
  const fs::path job = generate_world_job(dir, 16);
  // All 16 there: exit 0, no coverage line.
  CliOutcome all = run_cli(dir, "cluster -d " + job.string() + " -o " + (dir / "all").string() +
                                    " -m step_trace --format csv");
  EXPECT_EQ(all.rc, 0) << all.err;
  EXPECT_EQ(all.out.find("ranks of the job found"), std::string::npos) << all.out;
  for (int r = 12; r < 16; ++r) fs::remove_all(rank_dir(job, r));
  CliOutcome part = run_cli(dir, "cluster -d " + job.string() + " -o " + (dir / "part").string() +
                                     " -m step_trace --format csv");
  EXPECT_EQ(part.rc, 3) << part.err;
  EXPECT_NE(part.out.find("12 of 16 ranks of the job found: 4 missing (ranks 12-15)\n"),
            std::string::npos)
      << part.out;
  EXPECT_EQ(lines_with(part.err, "12 of 16 ranks of the job found"), 1u) << part.err;
  EXPECT_NE(part.err.find("world_size"), std::string::npos) << part.err;
  // Said once: the step trace does not warn about the same ranks again.
  EXPECT_EQ(part.err.find("may be missing"), std::string::npos) << part.err;
  // The results are still written.
  EXPECT_TRUE(fs::is_regular_file(dir / "part/cluster_analysis_output/step_trace.csv"));
  // --strict turns it into 1; --rank-list 0-11 asks for just those: 0.
  EXPECT_EQ(run_cli(dir, "cluster -d " + job.string() + " -o " + (dir / "s").string() +
                             " -m step_trace --format csv --strict")
                .rc,
            1);
  CliOutcome picked = run_cli(dir, "cluster -d " + job.string() + " -o " + (dir / "p").string() +
                                       " -m step_trace --format csv --rank-list 0-11");
  EXPECT_EQ(picked.rc, 0) << picked.err;
  EXPECT_EQ(picked.out.find("ranks of the job found"), std::string::npos) << picked.out;
}

// -d at one rank's own directory (by default -o = -d): said in one line, the results go to
// <d>/cluster_analysis_output/ as msprof-analyze writes them, exit 3.
TEST(MistakesAnswered, InputIsOneRankDirectory) {
  const fs::path dir = temp_dir("mist_rankdir");
  const fs::path job = generate_world_job(dir, 16);
  const fs::path r3 = rank_dir(job, 3);
  ASSERT_FALSE(r3.empty());
  CliOutcome one = run_cli(dir, "cluster -d " + r3.string() + " -m step_trace --format csv");
  EXPECT_EQ(one.rc, 3) << one.err;
  EXPECT_EQ(lines_with(one.err, "is one rank's directory (rank 3), not a job's"), 1u) << one.err;
  EXPECT_NE(one.err.find("the results go inside it, to " + r3.string() +
                         "/cluster_analysis_output/ (as msprof-analyze does)"),
            std::string::npos)
      << one.err;
  EXPECT_NE(one.out.find("1 of 16 ranks of the job found: 15 missing (ranks 0-2,4-15)"),
            std::string::npos)
      << one.out;
  EXPECT_TRUE(fs::is_regular_file(r3 / "cluster_analysis_output/rank_manifest.csv"));

  // A copy under a name of its own (it holds ASCEND_PROFILER_OUTPUT/ and profiler_info_3.json)
  // is a rank directory too; -o elsewhere: nothing said about writing inside it.
  fs::copy(r3, dir / "my_rank", fs::copy_options::recursive);
  fs::remove_all(dir / "my_rank/cluster_analysis_output");
  CliOutcome copy = run_cli(dir, "cluster -d " + (dir / "my_rank").string() + " -o " +
                                     (dir / "out").string() + " -m step_trace --format csv");
  EXPECT_EQ(copy.rc, 3) << copy.err;
  EXPECT_EQ(lines_with(copy.err,
                       "is one rank's directory (rank 3), not a job's: only this rank "
                       "is analysed \u2014 give -d the directory that holds every rank"),
            1u)
      << copy.err;
  EXPECT_EQ(copy.err.find("inside"), std::string::npos) << copy.err;
  EXPECT_TRUE(fs::is_regular_file(dir / "out/cluster_analysis_output/step_trace.csv"));

  // The real job's rank 1 alone: no world_size in its metadata, but rank 1 means a rank 0.
  fs::copy(kRealJob + "/rank1_ascend_pt", dir / "rank1_ascend_pt", fs::copy_options::recursive);
  CliOutcome real = run_cli(dir, "cluster -d " + (dir / "rank1_ascend_pt").string() + " -o " +
                                     (dir / "real").string() + " -m step_trace --format csv");
  EXPECT_EQ(real.rc, 3) << real.err;
  EXPECT_NE(real.out.find("1 of 2 ranks of the job found: 1 missing (rank 0)"), std::string::npos)
      << real.out;
}

// -o inside a rank directory of the job is said too (the input is the job's directory).
TEST(MistakesAnswered, OutputInsideARankDirectoryIsSaid) {
  const fs::path dir = temp_dir("mist_inside");
  fs::copy(kRealJob, dir / "job", fs::copy_options::recursive);
  const fs::path out = dir / "job/rank0_ascend_pt/results";
  CliOutcome r = run_cli(dir, "cluster -d " + (dir / "job").string() + " -o " + out.string() +
                                  " -m step_trace --format csv");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(lines_with(r.err, "the results go inside the profiler's directory of rank 0"), 1u)
      << r.err;
}

TEST(MistakesAnswered, GenerateRefusesANonEmptyDirectoryUnlessForce) {
  const fs::path dir = temp_dir("mist_gen");
  const fs::path out = dir / "out";
  fs::create_directories(out);
  std::ofstream(out / "notes.txt") << "mine\n";
  CliOutcome refused = run_cli(dir, "generate " + out.string() + " --ranks 8 --tp 4 --steps 1");
  EXPECT_EQ(refused.rc, 2);
  EXPECT_EQ(lines_with(refused.err, out.string() + ": the directory is not empty"), 1u)
      << refused.err;
  EXPECT_NE(refused.err.find("--force"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(out / "truth.json"));

  // --force: written beside the user's file; a second generate replaces the first's ranks.
  ASSERT_EQ(run_cli(dir, "generate " + out.string() + " --ranks 8 --tp 4 --steps 1 --force").rc, 0);
  EXPECT_EQ(run_cli(dir, "generate " + out.string() + " --ranks 8 --tp 4 --steps 1").rc, 2);
  CliOutcome again =
      run_cli(dir, "generate " + out.string() + " --ranks 4 --tp 4 --steps 1 --seed 9 --force");
  ASSERT_EQ(again.rc, 0) << again.err;
  size_t rank_dirs = 0;
  for (const auto& e : fs::directory_iterator(out))
    rank_dirs += e.path().filename().string().ends_with("_ascend_pt");
  EXPECT_EQ(rank_dirs, 4u);
  EXPECT_EQ(read_file(out / "notes.txt"), "mine\n");
  CliOutcome cl = run_cli(dir, "cluster -d " + out.string() + " -o " + (dir / "a").string() +
                                   " -m step_trace --format csv");
  EXPECT_EQ(cl.rc, 0) << cl.err;

  // A rank directory generate did not write is never removed, and --force still refuses.
  fs::copy(kRealJob + "/rank0_ascend_pt", out / "rank0_ascend_pt", fs::copy_options::recursive);
  CliOutcome foreign =
      run_cli(dir, "generate " + out.string() + " --ranks 4 --tp 4 --steps 1 --force");
  EXPECT_EQ(foreign.rc, 2);
  EXPECT_EQ(lines_with(foreign.err,
                       "1 rank directory an earlier generate did not write "
                       "(rank0_ascend_pt)"),
            1u)
      << foreign.err;
  EXPECT_TRUE(fs::is_directory(out / "rank0_ascend_pt/ASCEND_PROFILER_OUTPUT"));
}

// 64 rank directories without trace_view.json: one line with the count and what to do.
TEST(MistakesAnswered, MergeWithoutTimelinesSaysItOnce) {
  const fs::path dir = temp_dir("mist_merge64");
  const fs::path job = generate_world_job(dir, 64, "--no-trace-view --steps 1");
  CliOutcome r = run_cli(dir, "merge " + job.string() + " -o " + (dir / "m.json").string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(lines_with(r.err, "trace_view"), 1u) << r.err;
  EXPECT_EQ(lines_with(r.err,
                       "64 rank directories have no ASCEND_PROFILER_OUTPUT/"
                       "trace_view.json (ranks 0-63)"),
            1u)
      << r.err;
  EXPECT_NE(r.err.find("--trace-view"), std::string::npos) << r.err;

  // Some with, some without: the others are merged, one line, exit 3.
  for (int k = 0; k < 2; ++k) {
    // Give ranks 0 and 1 a timeline (a copy of a real NPU trace_view.json).
    fs::copy_file(std::string(CS_TEST_DATA) + "/ascend/trace_view.json",
                  rank_dir(job, k) / "ASCEND_PROFILER_OUTPUT/trace_view.json");
  }
  CliOutcome some = run_cli(dir, "merge " + job.string() + " -o " + (dir / "m2.json").string());
  EXPECT_EQ(some.rc, 3) << some.err;
  EXPECT_EQ(lines_with(some.err,
                       "62 rank directories have no ASCEND_PROFILER_OUTPUT/"
                       "trace_view.json (ranks 2-63)"),
            1u)
      << some.err;
  EXPECT_TRUE(fs::is_regular_file(dir / "m2.json"));
  // Leaving them out with --ranks: nothing to say, exit 0.
  CliOutcome picked =
      run_cli(dir, "merge " + job.string() + " --ranks 0-1 -o " + (dir / "m3.json").string());
  EXPECT_EQ(picked.rc, 0) << picked.err;
  EXPECT_EQ(lines_with(picked.err, "trace_view"), 0u) << picked.err;
}

TEST(MistakesAnswered, MergeAlignOnANameNobodyHasWarnsOnceAndExits3) {
  const fs::path dir = temp_dir("mist_align");
  const fs::path job = generate_world_job(dir, 8, "--steps 1");  // trace_view.json for every rank
  CliOutcome ok = run_cli(dir, "merge " + job.string() + " -o " + (dir / "a.json").string() +
                                   " --align hcom_allReduce");
  EXPECT_EQ(ok.rc, 0) << ok.err;
  CliOutcome r = run_cli(
      dir, "merge " + job.string() + " -o " + (dir / "b.json").string() + " --align NoSuchOp");
  EXPECT_EQ(r.rc, 3);
  EXPECT_EQ(lines_with(r.err, "NoSuchOp"), 1u) << r.err;
  EXPECT_NE(r.err.find("8 of 8 timelines have no event whose name contains it (ranks 0-7)"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::is_regular_file(dir / "b.json"));  // merged all the same, unaligned
}

TEST(MistakesAnswered, MergeOutputMustBeAFile) {
  const fs::path dir = temp_dir("mist_merge_o");
  fs::create_directories(dir / "outdir");
  CliOutcome r = run_cli(dir, "merge " + kRealJob + " -o " + (dir / "outdir").string());
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(lines_with(r.err, (dir / "outdir").string() + ": -o must be a file"), 1u) << r.err;
  EXPECT_NE(r.err.find("-o " + (dir / "outdir").string() + "/merged.json.gz"), std::string::npos)
      << r.err;
}

// top's option errors name top's options, not another command's.
TEST(MistakesAnswered, TopOptionErrorsNameTopsOptions) {
  const fs::path dir = temp_dir("mist_top");
  CliOutcome missing = run_cli(dir, "top --csv");
  EXPECT_EQ(missing.rc, 2);
  EXPECT_EQ(lines_with(missing.err, "clusterscope: top: "), 1u) << missing.err;
  EXPECT_NE(missing.err.find("top's options: --help, --top, --aggregate-by, --aggregate, "
                             "--order-by, --min-time, --max-time, --type, --opr-name, "
                             "--input-dtype, --top-end-key, --show-host, --copy-time, --csv, "
                             "--quiet"),
            std::string::npos)
      << missing.err;
  CliOutcome unknown = run_cli(dir, "top " + kRealJob + "/rank0_ascend_pt --rank-list 0");
  EXPECT_EQ(unknown.rc, 2);
  EXPECT_NE(unknown.err.find("top has no option --rank-list (its options: --help, --top"),
            std::string::npos)
      << unknown.err;
}

}  // namespace

namespace {

// Issue 15, point 9, on the real job: clusterscope's own CSVs carry no more decimals than the
// column's unit needs (us: 3, ms: 6), while msprof-analyze's cluster_step_trace_time.csv keeps
// Python's format.
TEST(MistakesAnswered, OwnCsvNumbersHaveTheDigitsTheyNeed) {
  const fs::path dir = temp_dir("mist_digits");
  CliOutcome r = run_cli(
      dir, "cluster -d " + kRealJob + " -o " + dir.string() + " --format csv --op-tables csv");
  ASSERT_EQ(r.rc, 0) << r.err;
  const fs::path out = dir / "cluster_analysis_output";
  size_t checked = 0;
  for (const char* name : {"step_trace.csv", "comm_rank_summary.csv", "communication_ops.csv",
                           "operators_topn.csv", "communication_matrix.csv"}) {
    std::istringstream in(read_file(out / name));
    std::string header;
    std::getline(in, header);
    std::vector<size_t> decimals;  // the most decimals a column may have, by its name
    std::stringstream hs(header);
    for (std::string col; std::getline(hs, col, ',');)
      decimals.push_back(col.ends_with("_us") ? 3 : col.ends_with("_ms") ? 6 : SIZE_MAX);
    for (std::string line; std::getline(in, line);) {
      if (line.find('"') != std::string::npos) continue;  // quoted fields: not numbers
      std::stringstream ls(line);
      size_t c = 0;
      for (std::string cell; std::getline(ls, cell, ','); ++c) {
        if (c >= decimals.size() || decimals[c] == SIZE_MAX) continue;
        const size_t dot = cell.find('.');
        if (dot == std::string::npos || cell.find('e') != std::string::npos) continue;
        EXPECT_LE(cell.size() - dot - 1, decimals[c]) << name << ": " << line;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100u);
  // msprof-analyze's file keeps Python's repr, as msprof-analyze wrote it for this job
  // (ascend-real/msprof-analyze-ref/text_level1__all: rank 0's Computing 8873.756000000001).
  const std::string msprof = read_file(out / "cluster_step_trace_time.csv");
  EXPECT_NE(msprof.find(",8873.756000000001,"), std::string::npos) << msprof;
}

}  // namespace
