// MindSpore's DB export layout: rank directories `*_ascend_ms` holding
// ASCEND_PROFILER_OUTPUT/ascend_mindspore_profiler_{N}.db and communication_analyzer.db (the tables
// of ascend_pytorch_profiler_{N}.db and analysis.db under MindSpore's names, as msprof-analyze's
// recipes look them up). A generated PyTorch DB job renamed into that layout gives the same
// recipe outputs and the same msprof-analyze documents; the manifest says "mindspore".
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;

namespace {

const fs::path& scratch() {
  static const cs::test::ScratchDir dir("mindspore-db");
  return dir.path();
}

// The generated job (PyTorch names) and its copy in MindSpore's layout.
std::pair<fs::path, fs::path> jobs() {
  static const std::pair<fs::path, fs::path> j = [] {
    const fs::path pt = scratch() / "pt", ms = scratch() / "ms";
    const int rc = cs::test::run_command(std::string(CS_BINARY) + " generate " + pt.string() +
                                             " --ranks 8 --tp 4 --pp 2 --steps 2 --export-type db",
                                         (scratch() / "generate.log").string());
    EXPECT_EQ(rc, 0) << cs::test::read_file(scratch() / "generate.log");
    fs::create_directories(ms);
    for (const auto& d : fs::directory_iterator(pt)) {
      if (!d.is_directory()) continue;
      std::string name = d.path().filename().string();
      name.replace(name.size() - 3, 3, "_ms");  // *_ascend_pt -> *_ascend_ms
      fs::copy(d.path(), ms / name, fs::copy_options::recursive);
      const fs::path out = ms / name / "ASCEND_PROFILER_OUTPUT";
      fs::rename(out / "analysis.db", out / "communication_analyzer.db");
      for (const auto& f : fs::directory_iterator(out)) {
        std::string n = f.path().filename().string();
        if (n.starts_with("ascend_pytorch_profiler_"))
          fs::rename(f.path(), out / ("ascend_mindspore_profiler_" + n.substr(24)));
      }
    }
    return std::pair{pt, ms};
  }();
  return j;
}

fs::path run(const fs::path& job, const std::string& args, const std::string& name) {
  const fs::path out = scratch() / name;
  const int rc = cs::test::run_command(std::string(CS_BINARY) + " cluster -q -d " + job.string() +
                                           " -o " + out.string() + " " + args,
                                       out.string() + ".log");
  EXPECT_EQ(rc, 0) << cs::test::read_file(out.string() + ".log");
  return out / "cluster_analysis_output";
}

TEST(MindSporeDbLayout, RecipesGiveWhatThePytorchLayoutGives) {
  const auto [pt, ms] = jobs();
  for (const char* recipe : {"communication_time_sum", "communication_matrix_sum", "hccl_sum",
                             "compute_op_sum", "mstx_sum"}) {
    const std::string args = std::string("-m ") + recipe + " --export_type text";
    const auto a = cs::test::read_tree(run(pt, args, std::string("pt-") + recipe));
    const auto b = cs::test::read_tree(run(ms, args, std::string("ms-") + recipe));
    EXPECT_FALSE(a.empty()) << recipe;
    EXPECT_TRUE(a == b) << recipe;
  }
}

TEST(MindSporeDbLayout, ClusterDocumentsAreTheSame) {
  const auto [pt, ms] = jobs();
  const fs::path a = run(pt, "-m all --export_type text --format json,csv", "pt-all");
  const fs::path b = run(ms, "-m all --export_type text --format json,csv", "ms-all");
  for (const char* f : {"cluster_step_trace_time.csv", "cluster_communication.json",
                        "cluster_communication_matrix.json", "communication_group.json",
                        "step_trace.csv", "communication_ops.csv", "operators_topn.csv"}) {
    ASSERT_TRUE(fs::exists(a / f)) << f;
    EXPECT_EQ(cs::test::read_file(a / f), cs::test::read_file(b / f)) << f;
  }
  const std::string manifest = cs::test::read_file(b / "rank_manifest.csv");
  EXPECT_NE(manifest.find(",mindspore,ok,"), std::string::npos) << manifest;
}

}  // namespace
