// run_cluster hands the step trace its analyses built to the command's next output
// (cluster_analysis.db of -m all, msprof_analyze/db_all/cluster_db_all.h): the rows of
// cluster_step_trace_time.csv and what they were read from (rank directories, DB export or text,
// --step).
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "cli/cli_test_util.h"
#include "cluster/cluster_run.h"
#include "support/mpi_session.h"
#include "support/test_data.h"

namespace fs = std::filesystem;
using cs::documents::BuiltStepTrace;

namespace {

using cs::test::kData;

struct Outcome {
  int code = -1;
  std::optional<BuiltStepTrace> built;
  std::string csv;  // cluster_step_trace_time.csv as written
};

Outcome run(const std::string& job, const std::string& name, std::optional<int64_t> step = {}) {
  const fs::path out = cs::test::temp_dir("cluster-run-step-trace-" + name);
  cs::cluster::ClusterRunOptions opts;
  opts.load.input_dir = job;
  opts.output_dir = out.string();
  opts.mode = cs::cluster::Mode::kAll;
  opts.quiet = true;
  opts.load.parse.step = step;
  opts.load.parse = cs::cluster::parse_options_for_mode(opts.mode, opts.load.parse);
  Outcome r;
  r.code = cs::cluster::run_cluster(cs::test::one_process_session(), opts, &r.built);
  r.csv = cs::test::read_file(out / "cluster_analysis_output" / "cluster_step_trace_time.csv");
  fs::remove_all(out);
  return r;
}

}  // namespace

TEST(ClusterRunStepTrace, DbJobHandsItsRowsAndRanks) {
  Outcome r = run(kData + "/ascend-real/db_level1", "db");
  EXPECT_EQ(r.code, 0);
  ASSERT_TRUE(r.built.has_value());
  EXPECT_TRUE(r.built->from_db_exports);
  EXPECT_FALSE(r.built->one_step);
  EXPECT_EQ(r.built->rank_dirs.size(), 2u);
  EXPECT_TRUE(r.built->trace.parked());  // on disk until cluster_analysis.db takes it
  ASSERT_FALSE(r.csv.empty());
  EXPECT_EQ(cs::documents::format_cluster_step_trace(r.built->trace.take()), r.csv);
}

TEST(ClusterRunStepTrace, TextJobAndOneStepAreSaidSo) {
  Outcome text = run(kData + "/ascend-real/text_level1", "text");
  ASSERT_TRUE(text.built.has_value());
  EXPECT_FALSE(text.built->from_db_exports);
  EXPECT_EQ(cs::documents::format_cluster_step_trace(text.built->trace.take()), text.csv);

  const Outcome one = run(kData + "/ascend-real/db_level1", "step", 50);
  ASSERT_TRUE(one.built.has_value());
  EXPECT_TRUE(one.built->one_step);
}
