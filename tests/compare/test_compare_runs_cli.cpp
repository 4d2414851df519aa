// End-to-end: `compare` of two cluster directories (generated: 16 ranks, tp 4; the comparison run
// with rank 5 computing 1.3x slower) compares every rank (or those --rank picks) and says so,
// puts what regressed, by how much and where first, and refuses runs of different shape. And on
// the real Kineto pair: no zero-difference rows among the largest differences, kernel names
// shortened in the middle with the full name on hover.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <regex>
#include <string>

#include "support/test_files.h"

namespace {

namespace fs = std::filesystem;

struct CliRun {
  int status = -1;
  std::string out, err;
};

CliRun run(const std::string& args, const fs::path& dir) {
  CliRun r;
  const fs::path err = dir / "stderr.txt";
  const std::string cmd = std::string(CS_BINARY) + " " + args + " 2>" + err.string();
  r.status = cs::test::run_capture(cmd, r.out);
  r.err = cs::test::slurp(err);
  return r;
}

using cs::test::slurp;

class CompareRuns : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("cs_cmp_runs_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    ASSERT_EQ(run("generate " + (dir_ / "a").string() + " --ranks 16 --tp 4 --seed 1", dir_).status,
              0);
    ASSERT_EQ(
        run("generate " + (dir_ / "b").string() + " --ranks 16 --tp 4 --seed 2 --slow-rank 5:1.3",
            dir_)
            .status,
        0);
    ASSERT_EQ(run("generate " + (dir_ / "c").string() + " --ranks 8 --tp 4 --seed 2", dir_).status,
              0);
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static fs::path dir_;
};
fs::path CompareRuns::dir_;

TEST_F(CompareRuns, EveryRankRegressionFirst) {
  const fs::path out = dir_ / "ab";
  const CliRun r =
      run("compare " + (dir_ / "a").string() + " " + (dir_ / "b").string() + " -o " + out.string(),
          dir_);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Run vs run: 16 ranks compared"), std::string::npos) << r.out;
  const std::string html = slurp(out / "comparison_output" / "report.html");
  // The scope is said in the report, and the timeline tables come from the regressed rank.
  EXPECT_NE(html.find("all 16 ranks of both runs compared"), std::string::npos);
  EXPECT_NE(html.find("compare rank 5&#39;s timelines"), std::string::npos)
      << html.substr(html.find("Run vs run"), 400);
  // The first finding after the scope: rank 5, by how much, the step, the operator.
  const size_t first = html.find("<li class=\"bad\" data-rank=\"5\">Rank 5 computes +");
  ASSERT_NE(first, std::string::npos);
  EXPECT_LT(first, html.find("id=\"overall\""));
  EXPECT_LT(first, html.find("end to end than the base"));
  const std::string line = html.substr(first, html.find("</li>", first) - first);
  EXPECT_TRUE(std::regex_search(line, std::regex(R"(\+\d+\.\d+ ms per step \(\+(2\d|3\d)\.\d%\))")))
      << line;
  EXPECT_TRUE(std::regex_search(line, std::regex(R"(most in step \d)"))) << line;
  EXPECT_NE(line.find("its operator that grew most: MatMulV3"), std::string::npos) << line;
  // The regressions section comes before the timeline tables.
  EXPECT_LT(html.find("id=\"regressions\""), html.find("id=\"kernels\""));
}

TEST_F(CompareRuns, RankPicksTheRanks) {
  const fs::path out = dir_ / "ab_pick";
  const CliRun r = run("compare " + (dir_ / "a").string() + " " + (dir_ / "b").string() +
                           " --rank 4-7 -o " + out.string(),
                       dir_);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Run vs run: 4 ranks compared"), std::string::npos) << r.out;
  const std::string html = slurp(out / "comparison_output" / "report.html");
  EXPECT_NE(html.find("the 4 ranks (4-7) picked by --rank"), std::string::npos);
  const std::string diff = slurp(out / "comparison_output" / "rank_diff.csv");
  EXPECT_EQ(diff.find("\n0,"), std::string::npos);
  EXPECT_NE(diff.find("\n5,"), std::string::npos);
}

TEST_F(CompareRuns, DifferentShapeIsRefused) {
  const CliRun r = run("compare " + (dir_ / "a").string() + " " + (dir_ / "c").string() + " -o " +
                           (dir_ / "ac").string(),
                       dir_);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("the runs differ in shape: the base has 16 ranks (0-15), the comparison 8 "
                       "ranks (0-7)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "ac" / "comparison_output" / "rank_diff.csv"));
  // Ranks both have, picked with --rank, compare; ranks one run lacks are named.
  EXPECT_EQ(run("compare " + (dir_ / "a").string() + " " + (dir_ / "c").string() +
                    " --rank 0-7 -q -o " + (dir_ / "ac").string(),
                dir_)
                .status,
            0);
  const CliRun bad = run("compare " + (dir_ / "a").string() + " " + (dir_ / "c").string() +
                             " --rank 6-9 -o " + (dir_ / "ac").string(),
                         dir_);
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("the comparison run does not have: 2 ranks (8,9)"), std::string::npos)
      << bad.err;
  EXPECT_EQ(run("compare " + std::string(CS_TEST_DATA) + "/kineto/sampled_rank-0.json.gz " +
                    std::string(CS_TEST_DATA) + "/kineto/sampled_rank-1.json.gz --rank 0 -o " +
                    (dir_ / "k").string(),
                dir_)
                .status,
            2);
}

TEST_F(CompareRuns, KinetoPairNamesShortNoZeroRows) {
  const fs::path out = dir_ / "kineto";
  const std::string data = CS_TEST_DATA;
  const CliRun r = run("compare " + data + "/kineto/sampled_rank-0.json.gz " + data +
                           "/kineto/sampled_rank-1.json.gz -q -o " + out.string(),
                       dir_);
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string html = slurp(out / "comparison_output" / "report.html");
  for (const char* id : {"kernels", "operators"}) {
    const size_t a = html.find(std::string("id=\"") + id + "\"");
    ASSERT_NE(a, std::string::npos) << id;
    const std::string sec = html.substr(a, html.find("<section", a + 1) - a);
    // Every diff cell shows a difference: a diff cell without "worse"/"better" (the diff, then
    // the ratio, then the bar) is a row of no difference.
    const std::regex zero(R"re(<td class="n">[^<]*</td><td class="n">[^<]*</td><td><svg)re");
    std::smatch m;
    EXPECT_FALSE(std::regex_search(sec, m, zero)) << id << ": " << m.str();
    // Every text cell shows at most 60 characters (61 with the ellipsis); a long one has its full
    // name on hover.
    const std::regex cell(R"re(<td class="key( short)?"( title="([^"]*)")?[^>]*>([^<]*)</td>)re");
    size_t shortened = 0;
    for (auto it = std::sregex_iterator(sec.begin(), sec.end(), cell); it != std::sregex_iterator();
         ++it) {
      std::string shown = (*it)[4].str();
      for (const auto& [entity, c] : {std::pair<std::string, std::string>{"&lt;", "<"},
                                      {"&gt;", ">"},
                                      {"&amp;", "&"},
                                      {"&quot;", "\""},
                                      {"&#39;", "'"}})
        for (size_t p = shown.find(entity); p != std::string::npos; p = shown.find(entity, p))
          shown.replace(p, entity.size(), c);
      size_t chars = 0;
      for (unsigned char c : shown) chars += (c & 0xC0) != 0x80;
      EXPECT_LE(chars, 61u) << shown;
      if ((*it)[1].matched) {
        ++shortened;
        EXPECT_GT((*it)[3].str().size(), shown.size());
      }
    }
    if (std::string(id) == "kernels") {
      EXPECT_GT(shortened, 0u);
    }
  }
}

}  // namespace

// Two rank directories with different rank ids (rank 0 and rank 1 of the real db_level1 job) are
// compared with each other, not refused as runs of different shape, and the operator totals are
// paired: MatMulV2 957.979 vs 976.56 us (sqlite3 on each ascend_pytorch_profiler_N.db:
// SELECT sum(t.endNs - t.startNs) FROM COMPUTE_TASK_INFO c JOIN TASK t USING (globalTaskId)
// JOIN STRING_IDS s ON s.id = c.opType WHERE s.value = 'MatMulV2' -> 957979 / 976560 ns).
TEST_F(CompareRuns, TwoRankDirectoriesOfOneJobArePaired) {
  const fs::path job = fs::path(CS_TEST_DATA) / "ascend-real/db_level1";
  const fs::path out = dir_ / "rank0_vs_rank1";
  const CliRun r = run("compare " + (job / "rank0_ascend_pt").string() + " " +
                           (job / "rank1_ascend_pt").string() + " -o " + out.string(),
                       dir_);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("differ in shape"), std::string::npos) << r.err;
  const std::string reg = slurp(out / "comparison_output" / "regressions.csv");
  EXPECT_NE(reg.find("operator,MatMulV2,957.979,976.56,"), std::string::npos) << reg;
  EXPECT_EQ(reg.find(",0,-"), std::string::npos) << reg;  // nothing compared against zeros
}
