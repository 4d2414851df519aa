// `cluster -m all` on a job with DB exports sets msprof-analyze's slow_rank, slow_link and
// freq_analysis verdicts beside its own findings (analysis/recipe_agreement.h,
// msprof_analyze/db_all/recipe_verdicts.h): recipe_agreement.csv, the report's table and the
// closing summary's lines. The verdicts are checked against the recipes run on their own
// (`-m slow_rank`, `-m freq_analysis`), the same at 1 and 2 processes; a text-only job gets none;
// a damaged rank is said once, not again by the recipes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "cli/cli_test_util.h"

namespace fs = std::filesystem;
using cs::test::mpirun;
using cs::test::read_file;
using cs::test::run_command;

namespace {

const fs::path& verdicts_scratch() {
  static const cs::test::ScratchDir d("recipe-verdicts");
  return d.path();
}

// A 16-rank DB job with a slow rank and two ranks whose AI Core clock changes.
const fs::path& job() {
  static const fs::path j = [] {
    const fs::path p = verdicts_scratch() / "job";
    run_command(std::string(CS_BINARY) + " generate " + p.string() +
                    " --ranks 16 --tp 4 --pp 2 --steps 3 --export-type db --slow-rank 5:1.3 "
                    "--slow-freq 3:800 --slow-freq 6:1200",
                (verdicts_scratch() / "gen.log").string());
    return p;
  }();
  return j;
}

// The CSV's rows as (recipe, subject) -> msprof_analyze cell (no cell of this table holds a
// quoted comma in those three columns).
std::map<std::pair<std::string, std::string>, std::string> agreement(const fs::path& csv) {
  std::map<std::pair<std::string, std::string>, std::string> out;
  std::istringstream in(read_file(csv));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "recipe,subject,msprof_analyze,clusterscope,agree,why");
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    bool quoted = false;
    for (char c : line) {
      if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        cells.push_back(cell);
        cell.clear();
      } else {
        cell += c;
      }
    }
    cells.push_back(cell);
    if (cells.size() >= 3) out[{cells[0], cells[1]}] = cells[2];
  }
  return out;
}

TEST(RecipeVerdicts, MatchTheRecipesRunOnTheirOwn) {
  ASSERT_TRUE(fs::exists(job() / "truth.json")) << read_file(verdicts_scratch() / "gen.log");
  const fs::path out = verdicts_scratch() / "all";
  ASSERT_EQ(
      run_command(std::string(CS_BINARY) + " cluster -d " + job().string() + " -o " + out.string(),
                  (verdicts_scratch() / "all.log").string()),
      0)
      << read_file(verdicts_scratch() / "all.log");
  const fs::path dir = out / "cluster_analysis_output";
  const std::string log = read_file(verdicts_scratch() / "all.log");
  EXPECT_NE(log.find("msprof-analyze slow_rank: most votes for rank 5 ("), std::string::npos)
      << log;
  EXPECT_NE(log.find("clusterscope also finds it slow."), std::string::npos) << log;
  EXPECT_NE(log.find("msprof-analyze freq_analysis: 2 rank(s)"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(dir / ".recipe_verdicts.tmp"));
  EXPECT_NE(read_file(dir / "report.html").find("id=\"recipe-agreement\""), std::string::npos);
  const auto rows = agreement(dir / "recipe_agreement.csv");

  // slow_rank on its own: the same votes for the most-voted ranks.
  const fs::path sr = verdicts_scratch() / "slow_rank";
  ASSERT_EQ(run_command(std::string(CS_BINARY) + " cluster -q -d " + job().string() + " -o " +
                        sr.string() + " -m slow_rank --export_type text"),
            0);
  std::istringstream votes(
      read_file(sr / "cluster_analysis_output/SlowRankAnalysis/rank_stats.csv"));
  std::string line;
  std::getline(votes, line);
  size_t compared = 0;
  while (std::getline(votes, line)) {
    const std::string rank = line.substr(0, line.find(','));
    const std::string n = line.substr(line.find(',') + 1);
    auto it = rows.find({"slow_rank", "rank " + rank});
    if (it == rows.end()) continue;  // beyond the table's top 10
    EXPECT_EQ(it->second, n + " vote(s)") << rank;
    ++compared;
  }
  EXPECT_GE(compared, 1u);
  EXPECT_EQ(rows.at({"slow_rank", "rank 5"}).empty(), false);
  // freq_analysis on its own names ranks 3 and 6 (generate --slow-freq).
  EXPECT_EQ(rows.at({"freq_analysis", "rank 3"}), "clock dropped: AI Core MHz [800, 1800]");
  EXPECT_EQ(rows.at({"freq_analysis", "rank 6"}), "abnormal clock: AI Core MHz [1200, 1800]");
}

TEST(RecipeVerdicts, SameAtTwoProcesses) {
  ASSERT_TRUE(fs::exists(job() / "truth.json"));
  const fs::path one = verdicts_scratch() / "np1", two = verdicts_scratch() / "np2";
  ASSERT_EQ(run_command(std::string(CS_BINARY) + " cluster -q -d " + job().string() + " -o " +
                        one.string()),
            0);
  ASSERT_EQ(run_command(
                mpirun(2) + CS_BINARY + " cluster -q -d " + job().string() + " -o " + two.string(),
                (verdicts_scratch() / "np2.log").string()),
            0)
      << read_file(verdicts_scratch() / "np2.log");
  const std::string a = read_file(one / "cluster_analysis_output/recipe_agreement.csv");
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, read_file(two / "cluster_analysis_output/recipe_agreement.csv"));
}

TEST(RecipeVerdicts, NoneForATextOnlyJob) {
  const fs::path text = verdicts_scratch() / "text-job", out = verdicts_scratch() / "text-out";
  ASSERT_EQ(run_command(std::string(CS_BINARY) + " generate " + text.string() +
                        " --ranks 8 --tp 4 --pp 2 --steps 2"),
            0);
  ASSERT_EQ(
      run_command(std::string(CS_BINARY) + " cluster -d " + text.string() + " -o " + out.string(),
                  (verdicts_scratch() / "text.log").string()),
      0);
  EXPECT_FALSE(fs::exists(out / "cluster_analysis_output/recipe_agreement.csv"));
  EXPECT_EQ(read_file(verdicts_scratch() / "text.log").find("msprof-analyze slow_rank"),
            std::string::npos);
}

// A rank whose profiler database is not a database: said once (the main run's message), the
// recipes add nothing; the other ranks are still compared.
TEST(RecipeVerdicts, ADamagedRankIsSaidOnce) {
  ASSERT_TRUE(fs::exists(job() / "truth.json"));
  const fs::path bad = verdicts_scratch() / "bad-job", out = verdicts_scratch() / "bad-out";
  fs::copy(job(), bad, fs::copy_options::recursive);
  size_t damaged = 0;
  for (const auto& e : fs::recursive_directory_iterator(bad))
    if (e.path().filename() == "ascend_pytorch_profiler_2.db") {
      std::ofstream(e.path(), std::ios::binary | std::ios::trunc) << "not a database at all";
      ++damaged;
    }
  ASSERT_EQ(damaged, 1u);
  const int rc =
      run_command(std::string(CS_BINARY) + " cluster -d " + bad.string() + " -o " + out.string(),
                  (verdicts_scratch() / "bad.log").string());
  const std::string log = read_file(verdicts_scratch() / "bad.log");
  EXPECT_NE(rc, 0) << log;  // a rank read only in part
  EXPECT_TRUE(fs::exists(out / "cluster_analysis_output/recipe_agreement.csv")) << log;
  // One line names the file: not again by the recipes, nor counted as two ranks.
  std::istringstream in(log);
  std::string line;
  size_t said = 0;
  while (std::getline(in, line)) {
    if (line.find("ascend_pytorch_profiler_2.db") == std::string::npos) continue;
    ++said;
    EXPECT_EQ(line.find("(the same in"), std::string::npos) << line;
  }
  EXPECT_EQ(said, 1u) << log;
}

}  // namespace
