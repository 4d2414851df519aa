// cluster_analysis.db's ClusterStepTraceTime (msprof_analyze/db_all/cluster_db_all.h) takes the
// main run's step trace when that run read the same ranks from their DB exports, all steps;
// otherwise it reads every rank's database again. A handed trace no rank's files hold tells the two
// apart.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "load/discovery.h"
#include "msprof_analyze/db_all/cluster_db_all.h"
#include "recipes/recipe_test_util.h"
#include "runtime/spill_file.h"

namespace fs = std::filesystem;
using cs::documents::BuiltStepTrace;
using cs::documents::StepCell;

namespace {

const std::string kJob = std::string(CS_TEST_DATA) + "/ascend-real/db_level1";

// One rank row of step "handed", from the job's rank directories read from their DB exports,
// parked in a spill file in `spill_dir` (the default temporary directory when empty).
BuiltStepTrace handed_trace(const std::string& spill_dir = {}) {
  cs::documents::ClusterStepTrace t;
  t.header = {"Step", "Type", "Index", "Computing"};
  t.add_row({StepCell::str("handed"), StepCell::str("rank"), StepCell::num(cs::io::Num::integer(0)),
             StepCell::num(cs::io::Num::real(1.5))});
  BuiltStepTrace b;
  b.trace = cs::documents::ParkedStepTrace(std::move(t), cs::runtime::SpillFile::create(spill_dir));
  for (const auto& e : cs::load::discover_ranks(kJob).ranks) b.rank_dirs.push_back(e.path);
  b.from_db_exports = true;
  return b;
}

// The step column of OUT's ClusterStepTraceTime, in row order.
std::vector<std::string> steps_written(const fs::path& out) {
  std::vector<std::string> steps;
  sqlite3* db = nullptr;
  const fs::path path = out / "cluster_analysis_output" / "cluster_analysis.db";
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK) << path;
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, "SELECT step FROM ClusterStepTraceTime", -1, &st, nullptr),
            SQLITE_OK)
      << path << ": no ClusterStepTraceTime";
  while (st && sqlite3_step(st) == SQLITE_ROW)
    steps.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
  sqlite3_finalize(st);
  sqlite3_close(db);
  return steps;
}

// Writes cluster_analysis.db for kJob into a fresh OUT with `built` handed over; its steps.
std::vector<std::string> write_with(const std::string& name, BuiltStepTrace* built) {
  cs::mpi::MpiSession& mpi = cs::test::one_process_session();
  const fs::path out = cs::test::temp_dir("cluster-db-all-" + name);
  cs::db_all::ClusterDbOptions opts;
  opts.input_dir = kJob;
  opts.output_dir = out.string();
  opts.quiet = true;
  opts.step_trace = built;
  EXPECT_EQ(cs::db_all::write_cluster_analysis_db(mpi, opts), 0) << name;
  std::vector<std::string> steps = steps_written(out);
  fs::remove_all(out);
  return steps;
}

// Empties every file this process has open below `dir` (an unnamed spill file among them),
// through /proc/self/fd; how many.
int truncate_open_files_below(const fs::path& dir) {
  int n = 0;
  for (const auto& fd : fs::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const fs::path target = fs::read_symlink(fd.path(), ec);
    if (ec || target.parent_path() != dir) continue;
    const int w = ::open(fd.path().c_str(), O_WRONLY);
    if (w < 0) continue;
    n += ::ftruncate(w, 0) == 0;
    ::close(w);
  }
  return n;
}

}  // namespace

TEST(ClusterDbStepTrace, MainRunRowsAreWrittenWithoutReadingTheRanksAgain) {
  BuiltStepTrace built = handed_trace();
  ASSERT_EQ(built.rank_dirs.size(), 2u);
  ASSERT_TRUE(built.trace.parked());
  EXPECT_EQ(write_with("handed", &built), std::vector<std::string>{"handed"});
}

TEST(ClusterDbStepTrace, RanksAreReadAgainWhenTheMainRunReadOtherData) {
  const std::vector<std::string> reread = write_with("none", nullptr);
  ASSERT_FALSE(reread.empty());
  EXPECT_EQ(std::count(reread.begin(), reread.end(), "handed"), 0);

  BuiltStepTrace text = handed_trace();
  text.from_db_exports = false;  // --data-type text: the text export's rows
  EXPECT_EQ(write_with("text", &text), reread);

  BuiltStepTrace one_step = handed_trace();
  one_step.one_step = true;  // --step N: the database has every step
  EXPECT_EQ(write_with("one-step", &one_step), reread);

  BuiltStepTrace fewer = handed_trace();
  fewer.rank_dirs.pop_back();  // not the same ranks
  EXPECT_EQ(write_with("fewer", &fewer), reread);
}

TEST(ClusterDbStepTrace, RowsLostFromTheirSpillFileAreReadAgainFromTheRanks) {
  const fs::path dir = cs::test::temp_dir("cluster-db-all-lost-spill");
  BuiltStepTrace lost = handed_trace(dir.string());
  ASSERT_TRUE(lost.trace.parked());
  ASSERT_EQ(truncate_open_files_below(fs::canonical(dir)), 1);
  // The table is still written, from the ranks' databases, as with no handed trace at all.
  EXPECT_EQ(write_with("lost", &lost), write_with("none-again", nullptr));
  fs::remove_all(dir);
}
