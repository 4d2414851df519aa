// Renders the reports in headless Chromium (Debian package `chromium`) and checks a screenshot is
// produced: the pages open from a file with no network. Skipped when /usr/bin/chromium is absent.
// Screenshots are left in <build>/report_screens/ for a person to look at.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/cluster_report.h"
#include "report/compare_report.h"
#include "report/csv_table.h"
#include "report/synthetic_cluster.h"

namespace fs = std::filesystem;
using namespace cs;
using namespace cs::report;
using report::test::load_csv_table;

namespace {

constexpr const char* kChromium = "/usr/bin/chromium";
const std::string kData = std::string(CS_TEST_DATA) + "/report/";

fs::path screens_dir() {
  fs::path d = fs::path(CS_BUILD_DIR) / "report_screens";
  fs::create_directories(d);
  return d;
}

// Runs headless Chromium on `html`, writing `png`; returns its exit status.
int screenshot(const fs::path& html, const fs::path& png, const std::string& size) {
  const fs::path profile =
      fs::temp_directory_path() /
      ("cs_chromium_" + std::to_string(::getpid()) + "_" + png.stem().string());
  fs::remove_all(profile);
  fs::remove(png);
  std::ostringstream cmd;
  cmd << kChromium
      << " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
         " --disable-background-networking --disable-component-update --disable-sync"
      << " --user-data-dir=" << profile << " --screenshot=" << png << " --window-size=" << size
      << " file://" << fs::absolute(html).string() << " > " << png.string() << ".log 2>&1";
  const int rc = std::system(cmd.str().c_str());
  fs::remove_all(profile);
  return rc;
}

void render_and_check(const std::string& html_text, const std::string& stem,
                      const std::string& size = "1400,3000") {
  const fs::path dir = screens_dir();
  const fs::path html = dir / (stem + ".html"), png = dir / (stem + ".png");
  {
    std::ofstream f(html, std::ios::binary);
    f << html_text;
  }
  const int rc = screenshot(html, png, size);
  EXPECT_EQ(rc, 0) << "chromium failed; see " << png.string() << ".log";
  ASSERT_TRUE(fs::exists(png)) << png;
  EXPECT_GT(fs::file_size(png), 40u * 1024) << png << " looks blank";
}

}  // namespace

class BrowserRender : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kChromium))
      GTEST_SKIP() << "headless Chromium not installed (apt-get install -y chromium)";
  }
};

TEST_F(BrowserRender, SmallClusterReport) {
  io::Table manifest = load_csv_table(kData + "rank_manifest.csv", "rank_manifest"),
            steps = load_csv_table(kData + "step_trace.csv", "step_trace"),
            matrix = load_csv_table(kData + "communication_matrix.csv", "communication_matrix"),
            summary = load_csv_table(kData + "comm_rank_summary.csv", "comm_rank_summary"),
            ops = load_csv_table(kData + "operators_topn.csv", "operators_topn"),
            slow_ranks = load_csv_table(kData + "slow_ranks.csv", "slow_ranks"),
            slow_links = load_csv_table(kData + "slow_links.csv", "slow_links");
  ClusterReportInput in;
  in.manifest = &manifest;
  in.step_trace = &steps;
  in.communication_matrix = &matrix;
  in.comm_rank_summary = &summary;
  in.operators_topn = &ops;
  in.slow_ranks = &slow_ranks;
  in.slow_links = &slow_links;
  in.input_path = "/data/job";
  in.seconds = 0.42;
  in.input_bytes = 9600000;
  in.summary_text = "8 ranks analysed, 1 skipped\nslow rank: 5 (compute)";
  render_and_check(render_cluster_report_html(in), "cluster_small");
}

TEST_F(BrowserRender, LargeClusterReport) {
  const auto c = report::test::make_synthetic_cluster(4096);
  render_and_check(render_cluster_report_html(c->input()), "cluster_4096", "1400,4000");
}

TEST_F(BrowserRender, CompareReport) {
  io::Table overall = load_csv_table(kData + "overall_metrics.csv", "overall_metrics"),
            kernels = load_csv_table(kData + "kernel_compare.csv", "kernel_compare"),
            ops = load_csv_table(kData + "operator_compare.csv", "operator_compare"),
            comm = load_csv_table(kData + "communication_compare.csv", "communication_compare");
  CompareReportInput in;
  in.overall_metrics = &overall;
  in.kernel_compare = &kernels;
  in.operator_compare = &ops;
  in.communication_compare = &comm;
  in.base_path = "/runs/gpu";
  in.comparison_path = "/runs/npu";
  in.seconds = 3.1;
  render_and_check(render_compare_report_html(in), "compare");
}
