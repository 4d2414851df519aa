// Golden cross-check on generated clusters: clusterscope's four msprof-analyze files must equal,
// byte for byte, what the independent Python model of msprof-analyze
// (tests/data/golden/msprof/msprof_reference.py) writes for the same per-rank inputs. The model
// maps local matrix ranks as msprof-analyze does (self links only), as clusterscope's
// cluster_communication_matrix.json does (its own tables may also map through
// profiler_metadata.json; see docs/msprof-compat.md).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <regex>

#include "cli/cli_test_util.h"
#include "support/missing_tool.h"

namespace fs = std::filesystem;
using cs::test::read_file;
using cs::test::run_command;

namespace {

bool have_python() {
  return run_command("/usr/bin/python3 -c 'import json, csv'", "/dev/null") == 0;
}

// Lays the generated rank directories out as the model expects: CASE/rank<N>/<files>.
void make_model_view(const fs::path& cluster, const fs::path& view) {
  fs::create_directories(view);
  const std::regex info(R"(profiler_info_(\d+)\.json)");
  for (const auto& e : fs::recursive_directory_iterator(cluster)) {
    std::smatch m;
    const std::string name = e.path().filename().string();
    if (!std::regex_match(name, m, info)) continue;
    const fs::path rank_dir = e.path().parent_path();
    const fs::path dst = view / ("rank" + m[1].str());
    fs::create_directories(dst);
    for (const char* f : {"communication.json", "communication_matrix.json", "step_trace_time.csv"})
      fs::create_symlink(rank_dir / "ASCEND_PROFILER_OUTPUT" / f, dst / f);
    if (fs::exists(rank_dir / "profiler_metadata.json"))
      fs::create_symlink(rank_dir / "profiler_metadata.json", dst / "profiler_metadata.json");
  }
}

struct ReferenceShape {
  int ranks, tp, pp, steps, seed;
  std::string faults;
};

class MsprofReference : public ::testing::TestWithParam<ReferenceShape> {};

TEST_P(MsprofReference, GeneratedClusterMatchesPythonModel) {
  if (!have_python()) CS_MISSING_TOOL("/usr/bin/python3 (runs the reference model)");
  const ReferenceShape s = GetParam();
  const std::string tag =
      std::to_string(s.ranks) + "-" + std::to_string(s.tp) + "-" + std::to_string(s.pp);
  const fs::path root = cs::test::temp_dir("msprof-ref-" + tag);
  const fs::path in = root / "in";
  ASSERT_EQ(run_command(std::string(CS_BINARY) + " generate " + in.string() + " --ranks " +
                            std::to_string(s.ranks) + " --tp " + std::to_string(s.tp) + " --pp " +
                            std::to_string(s.pp) + " --steps " + std::to_string(s.steps) +
                            " --seed " + std::to_string(s.seed) + " " + s.faults,
                        (root / "gen.log").string()),
            0)
      << read_file(root / "gen.log");
  const fs::path out = root / "out";
  const int rc = run_command(std::string(CS_BINARY) + " cluster -d " + in.string() + " -o " +
                                 out.string() + " --quiet --format json",
                             (root / "cluster.log").string());
  ASSERT_EQ(rc, 0) << read_file(root / "cluster.log");

  make_model_view(in, root / "view");
  const fs::path expected = root / "expected";
  ASSERT_EQ(run_command("/usr/bin/python3 " CS_SOURCE_DIR
                        "/tests/data/golden/msprof/msprof_reference.py " +
                            (root / "view").string() + " " + expected.string(),
                        (root / "model.log").string()),
            0)
      << read_file(root / "model.log");

  for (const char* f : {"communication_group.json", "cluster_communication.json",
                        "cluster_communication_matrix.json", "cluster_step_trace_time.csv"}) {
    ASSERT_TRUE(fs::exists(expected / f)) << f << " not written by the model";
    const std::string want = read_file(expected / f);
    const std::string got = read_file(out / "cluster_analysis_output" / f);
    EXPECT_EQ(got.size(), want.size()) << f;
    if (got != want) {
      size_t i = 0;
      while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
      ADD_FAILURE() << f << " differs from the model at byte " << i
                    << ":\n  ours:  " << got.substr(i > 60 ? i - 60 : 0, 160)
                    << "\n  model: " << want.substr(i > 60 ? i - 60 : 0, 160);
    }
  }
  fs::remove_all(root);
}

INSTANTIATE_TEST_SUITE_P(Shapes, MsprofReference,
                         ::testing::Values(ReferenceShape{8, 2, 2, 2, 1, ""},
                                           ReferenceShape{16, 4, 2, 3, 2, "--slow-rank 5:1.3"},
                                           ReferenceShape{24, 2, 3, 2, 3, "--slow-link 0-1:0.5"},
                                           ReferenceShape{32, 8, 1, 2, 4, ""}));

}  // namespace
