// `generate --framework msprof`: CANN msprof's PROF_ text layout (docs/formats.md §1b) holding the
// same job as the torch_npu layout of the same options: discovery finds the ranks from
// info.json.{d}, the flat communication files hold the same op instances, the timeline's
// Overlap Analysis spans sum to the torch_npu step trace.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "generator/generator.h"
#include "load/discovery.h"
#include "readers/communication.h"
#include "readers/kernel_details.h"
#include "readers/matrix.h"
#include "readers/msprof_step_trace.h"
#include "readers/step_trace.h"
#include "support/test_files.h"

namespace fs = std::filesystem;
using namespace cs::generator;
using cs::test::all_diags;
using cs::test::TempDir;

namespace {

GeneratorOptions options(FrameworkKind framework) {
  GeneratorOptions o;
  o.ranks = 8;
  o.tp = 2;
  o.pp = 2;
  o.steps = 2;
  o.seed = 5;
  o.framework = framework;
  return o;
}

// Every op instance name (without the step level), p2p and collective, totals left out.
std::set<std::string> op_names(const std::string& path) {
  cs::readers::CommunicationFile f;
  cs::io::Diagnostics d;
  EXPECT_TRUE(cs::readers::read_communication_json(path, f, d)) << all_diags(d);
  std::set<std::string> out;
  for (const auto& s : f.steps) {
    for (const auto& op : s.collective)
      if (!op.is_total()) out.insert(op.name);
    for (const auto& op : s.p2p)
      if (!op.is_total()) out.insert(op.name);
  }
  return out;
}

TEST(GeneratorMsprof, ProfDirectoriesHoldTheTorchNpuJob) {
  TempDir pt, ms;
  cs::io::Diagnostics d;
  ASSERT_TRUE(generate_cluster(pt.str(), options(FrameworkKind::kPyTorch), d)) << all_diags(d);
  ASSERT_TRUE(generate_cluster(ms.str(), options(FrameworkKind::kMsprof), d)) << all_diags(d);

  const auto torch = cs::load::discover_ranks(pt.str());
  const auto prof = cs::load::discover_ranks(ms.str());
  ASSERT_EQ(prof.ranks.size(), 8u) << all_diags(prof.diag);
  EXPECT_EQ(prof.diag.warning_count(), 0u) << all_diags(prof.diag);
  for (int r = 0; r < 8; ++r) {
    const auto& e = prof.ranks[static_cast<size_t>(r)];
    EXPECT_EQ(e.rank, r);  // from device_{d}/info.json.{d}'s rank_id
    EXPECT_EQ(e.framework, cs::load::Framework::kMsprof);
    EXPECT_TRUE(fs::path(e.path).filename().string().starts_with("PROF_")) << e.path;
    const std::string dev = std::to_string(r % 8);
    EXPECT_TRUE(fs::exists(fs::path(e.path) / ("device_" + dev) / ("info.json." + dev)));
    EXPECT_FALSE(fs::exists(fs::path(e.path) / "profiler_metadata.json"));

    // The flat communication.json: the same op instances as the torch_npu steps.
    const std::string torch_out = torch.ranks[static_cast<size_t>(r)].output_dir;
    EXPECT_EQ(op_names(e.path + "/analyze/communication.json"),
              op_names(torch_out + "/communication.json"))
        << "rank " << r;
    const std::string flat = cs::test::slurp(e.path + "/analyze/communication.json");
    EXPECT_EQ(flat.find("\"step1\""), std::string::npos);
    EXPECT_NE(flat.find("\"Total Op Info\""), std::string::npos);

    // The timeline's sums equal the torch_npu step trace's, summed over the steps (the
    // timeline's durations have 3 decimals).
    std::vector<std::string> names;
    for (const auto& f : fs::directory_iterator(e.path + "/mindstudio_profiler_output"))
      names.push_back(f.path().filename().string());
    const auto files = cs::readers::msprof_timeline_files(names);
    ASSERT_EQ(files.size(), 1u);
    cs::readers::StepTraceFile got, want;
    ASSERT_TRUE(cs::readers::read_msprof_step_trace(
        {e.path + "/mindstudio_profiler_output/" + files[0]}, got, d))
        << all_diags(d);
    ASSERT_TRUE(cs::readers::read_step_trace_csv(torch_out + "/step_trace_time.csv", want, d))
        << all_diags(d);
    ASSERT_EQ(got.rows.size(), 1u);
    for (const char* c : {"Computing", "Communication(Not Overlapped)", "Communication", "Free",
                          "Bubble", "Stage"}) {
      double sum = 0;
      for (const auto& row : want.rows) sum += want.get(row, c);
      EXPECT_NEAR(got.get(got.rows[0], c), sum, 1.0) << "rank " << r << " " << c;
      EXPECT_GT(sum, 0.0) << c;
    }

    // Operator statistics: op_statistic_{timestamp}.csv beside the timeline.
    std::vector<cs::readers::OpStatisticRow> stats;
    const std::string stat = files[0].substr(0, files[0].size() - 5);  // "msprof_<ts>"
    ASSERT_TRUE(cs::readers::read_op_statistic_csv(
        e.path + "/mindstudio_profiler_output/op_statistic_" + stat.substr(7) + ".csv", stats, d))
        << all_diags(d);
    EXPECT_FALSE(stats.empty());
  }
}

}  // namespace
