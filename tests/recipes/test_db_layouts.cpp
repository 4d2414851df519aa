// The DB export's other layouts, with the tables of ascend_pytorch_profiler_{N}.db and
// analysis.db under the names msprof-analyze looks up:
// - MindSpore: rank directories `*_ascend_ms` holding ASCEND_PROFILER_OUTPUT/
//   ascend_mindspore_profiler_{N}.db and communication_analyzer.db;
// - CANN msprof: PROF_* directories holding msprof_{14 digits}.db (the newest is read),
//   analyze/communication_analyzer.db and device_{N}/info.json.{N} with the rank (no
//   profiler_info_{N}.json).
// A generated PyTorch DB job copied into each layout gives the same recipe outputs and the same
// msprof-analyze documents; the manifest names the framework.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "recipes/recipe_test_util.h"
#include "support/test_files.h"

namespace fs = std::filesystem;

namespace {

const fs::path& layouts_scratch() {
  static const cs::test::ScratchDir dir("mindspore-db");
  return dir.path();
}

struct Jobs {
  fs::path pt, ms, prof;
};

// The generated job (PyTorch names) and its copies in MindSpore's and CANN msprof's layouts.
const Jobs& jobs() {
  static const Jobs j = [] {
    const fs::path pt = layouts_scratch() / "pt", ms = layouts_scratch() / "ms",
                   prof = layouts_scratch() / "prof";
    const int rc = cs::test::run_command(std::string(CS_BINARY) + " generate " + pt.string() +
                                             " --ranks 8 --tp 4 --pp 2 --steps 2 --export-type db",
                                         (layouts_scratch() / "generate.log").string());
    EXPECT_EQ(rc, 0) << cs::test::read_file(layouts_scratch() / "generate.log");
    fs::create_directories(ms);
    for (const auto& d : fs::directory_iterator(pt)) {
      if (!d.is_directory()) continue;
      std::string name = d.path().filename().string();
      name.replace(name.size() - 3, 3, "_ms");  // *_ascend_pt -> *_ascend_ms
      fs::copy(d.path(), ms / name, fs::copy_options::recursive);
      const fs::path out = ms / name / "ASCEND_PROFILER_OUTPUT";
      fs::rename(out / "analysis.db", out / "communication_analyzer.db");
      std::string rank;
      for (const auto& f : fs::directory_iterator(out)) {
        std::string n = f.path().filename().string();
        if (!n.starts_with("ascend_pytorch_profiler_")) continue;
        rank = n.substr(24, n.size() - 27);
        fs::rename(f.path(), out / ("ascend_mindspore_profiler_" + n.substr(24)));
      }
      // PROF_{n}_{timestamp}_{suffix}: an older msprof_*.db beside the newest, which is read.
      const fs::path p = prof / ("PROF_00000" + rank + "_2024010100000000" + rank + "_ABCDEF");
      fs::create_directories(p / "analyze");
      fs::copy_file(out / "communication_analyzer.db", p / "analyze" / "communication_analyzer.db");
      fs::copy_file(out / ("ascend_mindspore_profiler_" + rank + ".db"),
                    p / "msprof_20240101000000.db");
      cs::test::write_file(p / "msprof_20231231000000.db", "not a database");
      cs::test::write_file(p / ("device_" + rank) / ("info.json." + rank),
                           "{\"hostUid\": \"17\", \"rank_id\": " + rank + "}");
    }
    return Jobs{pt, ms, prof};
  }();
  return j;
}

fs::path run_layout(const fs::path& job, const std::string& args, const std::string& name) {
  const fs::path out = layouts_scratch() / name;
  const int rc = cs::test::run_command(std::string(CS_BINARY) + " cluster -q -d " + job.string() +
                                           " -o " + out.string() + " " + args,
                                       out.string() + ".log");
  EXPECT_EQ(rc, 0) << cs::test::read_file(out.string() + ".log");
  return out / "cluster_analysis_output";
}

class DbLayout : public ::testing::TestWithParam<const char*> {
 protected:
  fs::path job() const { return std::string(GetParam()) == "ms" ? jobs().ms : jobs().prof; }
};

TEST_P(DbLayout, RecipesGiveWhatThePytorchLayoutGives) {
  for (const char* recipe : {"communication_time_sum", "communication_matrix_sum", "hccl_sum",
                             "compute_op_sum", "mstx_sum", "computational_op_masking"}) {
    const std::string args = std::string("-m ") + recipe + " --export_type text";
    const auto a = cs::test::read_tree(
        run_layout(jobs().pt, args, std::string("pt-") + GetParam() + "-" + recipe));
    const auto b =
        cs::test::read_tree(run_layout(job(), args, std::string(GetParam()) + "-" + recipe));
    EXPECT_FALSE(a.empty()) << recipe;
    EXPECT_TRUE(a == b) << recipe;
  }
}

TEST_P(DbLayout, ClusterDocumentsAreTheSame) {
  const std::string args = "-m all --export_type text --format json,csv --op-tables csv";
  const fs::path a = run_layout(jobs().pt, args, "pt-all");
  const fs::path b = run_layout(job(), args, std::string(GetParam()) + "-all");
  for (const char* f : {"cluster_step_trace_time.csv", "cluster_communication.json",
                        "cluster_communication_matrix.json", "communication_group.json",
                        "step_trace.csv", "communication_ops.csv", "operators_topn.csv"}) {
    ASSERT_TRUE(fs::exists(a / f)) << f;
    EXPECT_EQ(cs::test::read_file(a / f), cs::test::read_file(b / f)) << f;
  }
  const std::string manifest = cs::test::read_file(b / "rank_manifest.csv");
  const std::string framework = std::string(GetParam()) == "ms" ? ",mindspore,ok," : ",msprof,ok,";
  EXPECT_NE(manifest.find(framework), std::string::npos) << manifest;
}

INSTANTIATE_TEST_SUITE_P(Layouts, DbLayout, ::testing::Values("ms", "prof"));

}  // namespace
