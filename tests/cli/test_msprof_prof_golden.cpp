// Golden test on CANN msprof's own PROF_ text directories (docs/formats.md §1b): clusterscope's
// four msprof-analyze documents on tests/data/golden/msprof_prof/job (8 ranks, tp 2, pp 2, made by
// `generate --framework msprof`) equal, byte for byte, msprof-analyze 8399c1cd's own outputs in
// expected/ (made by run_msprof_analyze.py, see tests/data/SOURCES.md) — with no launcher and
// under mpirun at 1, 2 and 4 processes.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli/cli_test_util.h"

namespace fs = std::filesystem;
using cs::test::mpirun;
using cs::test::read_file;
using cs::test::run_command;

namespace {

const fs::path kProfGolden = fs::path(CS_SOURCE_DIR) / "tests/data/golden/msprof_prof";
constexpr const char* kDocuments[] = {"communication_group.json", "cluster_communication.json",
                                      "cluster_communication_matrix.json",
                                      "cluster_step_trace_time.csv"};

// Runs the analysis of the golden job into `out` (launcher "" for none); its exit status.
int analyse_prof(const std::string& launcher, const fs::path& out) {
  return run_command(launcher + CS_BINARY + " cluster -d " + (kProfGolden / "job").string() +
                         " -o " + out.string() + " --quiet --format json,csv",
                     out.string() + ".log");
}

void expect_prof_golden(const fs::path& out, const std::string& how) {
  for (const char* doc : kDocuments) {
    const fs::path got = out / "cluster_analysis_output" / doc;
    ASSERT_TRUE(fs::exists(got)) << doc << " missing (" << how << ")";
    EXPECT_TRUE(read_file(got) == read_file(kProfGolden / "expected" / doc))
        << doc << " differs from msprof-analyze's (" << how << ")";
  }
}

TEST(MsprofProfGolden, DocumentsEqualMsprofAnalyzeWithAndWithoutLauncher) {
  const fs::path root = cs::test::temp_dir("msprof-prof-golden");
  const fs::path base = root / "out-nolauncher";
  ASSERT_EQ(analyse_prof("", base), 0) << read_file(base.string() + ".log");
  expect_prof_golden(base, "no launcher");
  // Every rank fully read: the step trace from the timeline, the operators from op_statistic.
  const std::string manifest = read_file(base / "cluster_analysis_output/rank_manifest.csv");
  EXPECT_EQ(manifest.find("partial"), std::string::npos) << manifest;
  for (int np : {1, 2, 4}) {
    const fs::path out = root / ("out-np" + std::to_string(np));
    ASSERT_EQ(analyse_prof(mpirun(np), out), 0) << read_file(out.string() + ".log");
    expect_prof_golden(out, "mpirun -np " + std::to_string(np));
  }
  fs::remove_all(root);
}

}  // namespace
