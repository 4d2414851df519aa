// Renders the reports in headless Chromium (Debian package `chromium`) and checks a screenshot is
// produced: the pages open from a file with no network; then drives it through chromedriver and
// python3-selenium (tests/report/browser_check.py) on a generated job: console errors, overflow,
// sorting, search, drill-down. Skipped when the browser is absent, except under CI=true, where a
// missing browser is a failure (scripts/install-deps.sh installs it). Screenshots are left in
// <build>/report_screens/ for a person to look at.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/cluster_page/cluster_report.h"
#include "report/compare_page/compare_report.h"
#include "report/csv_table.h"
#include "report/synthetic_cluster.h"
#include "support/missing_tool.h"

namespace fs = std::filesystem;
using namespace cs;
using namespace cs::report;
using report::test::kReportData;
using report::test::load_csv_table;

namespace {

constexpr const char* kChromium = "/usr/bin/chromium";
constexpr const char* kDriver = "/usr/bin/chromedriver";
constexpr const char* kPython = "/usr/bin/python3";

// Runs `cmd` through the shell; returns its exit status.
int run(const std::string& cmd) {
  return std::system(cmd.c_str());
}

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
    if (!fs::exists(kChromium)) CS_MISSING_TOOL("headless Chromium (" << kChromium << ")");
  }
};

TEST_F(BrowserRender, SmallClusterReport) {
  io::Table manifest = load_csv_table(kReportData + "rank_manifest.csv", "rank_manifest"),
            steps = load_csv_table(kReportData + "step_trace.csv", "step_trace"),
            matrix =
                load_csv_table(kReportData + "communication_matrix.csv", "communication_matrix"),
            summary = load_csv_table(kReportData + "comm_rank_summary.csv", "comm_rank_summary"),
            ops = load_csv_table(kReportData + "operators_topn.csv", "operators_topn"),
            slow_ranks = load_csv_table(kReportData + "slow_ranks.csv", "slow_ranks"),
            slow_links = load_csv_table(kReportData + "slow_links.csv", "slow_links");
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
  io::Table overall = load_csv_table(kReportData + "overall_metrics.csv", "overall_metrics"),
            kernels = load_csv_table(kReportData + "kernel_compare.csv", "kernel_compare"),
            ops = load_csv_table(kReportData + "operator_compare.csv", "operator_compare"),
            comm =
                load_csv_table(kReportData + "communication_compare.csv", "communication_compare");
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

// What a browser check of a generated job's report needs: the generate arguments, the check
// script (tests/report/), its arguments after the page and the screenshot folder, and a word its
// output must hold.
struct GeneratedPageCheck {
  std::string name;           // the temporary folder, log and kept page are named after it
  std::string generate_args;  // after `generate JOB`
  std::string script;         // tests/report/<script>
  std::string script_args;    // e.g. the slow rank it must find
  std::string expect;         // a word the script prints when it got through
};

// Generates the job, analyses it with `cluster --format html`, drives its report.html with the
// check script in Debian's chromium; the page is kept beside the screenshots.
void check_generated_page(const GeneratedPageCheck& c) {
  const bool have = fs::exists(kDriver) &&
                    run(std::string(kPython) + " -c 'import selenium' > /dev/null 2>&1") == 0;
  if (!have) CS_MISSING_TOOL("chromedriver or python3-selenium");
  const fs::path dir =
      fs::temp_directory_path() / ("cs_browser_" + c.name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string job = (dir / "job").string(), out = (dir / "out").string();
  ASSERT_EQ(run(std::string(CS_BINARY) + " generate " + job + " " + c.generate_args +
                " > /dev/null 2>&1"),
            0);
  ASSERT_EQ(run(std::string(CS_BINARY) + " cluster -d " + job + " -o " + out +
                " --format html -q > /dev/null 2>&1") >>
                8,
            0);
  const fs::path outdir = fs::path(out) / "cluster_analysis_output";
  const fs::path html = outdir / "report.html";
  ASSERT_TRUE(fs::exists(html));
  EXPECT_FALSE(fs::exists(outdir / "step_trace.csv")) << "--format html wrote CSV";
  const fs::path log = screens_dir() / (c.name + ".log");
  const int rc = run(std::string(kPython) + " " + CS_SOURCE_DIR + "/tests/report/" + c.script +
                     " " + html.string() + " " + screens_dir().string() + " " + c.script_args +
                     " > " + log.string() + " 2>&1");
  std::ifstream f(log);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(rc, 0) << text;
  EXPECT_NE(text.find(c.expect), std::string::npos) << text;
  std::printf("%s", text.c_str());  // load time, size and where the screenshots are
  fs::copy_file(html, screens_dir() / (c.name + ".html"), fs::copy_options::overwrite_existing);
  fs::remove_all(dir);
}

// A generated 96-rank job (tp 4, pp 2) with rank 37 computing 1.3x slower and the link 0 -> 4 slow,
// analysed by the binary; the page driven in the browser by tests/report/browser_check.py.
TEST_F(BrowserRender, InteractiveClusterReport) {
  check_generated_page({"interactive",
                        "--ranks 96 --tp 4 --pp 2 --slow-rank 37:1.3 --slow-link 0-4:0.3",
                        "browser_check.py", "37", "load_ms"});
}

// A generated 8-rank GPU job (Kineto traces, tp 2, pp 2) with rank 3 computing 1.5x slower,
// analysed by the binary; its report.html driven by tests/report/browser_gpu_check.py: no JS
// errors, the slow rank named with its cause and marked, tables sortable and searchable.
TEST_F(BrowserRender, InteractiveGpuClusterReport) {
  check_generated_page({"interactive_gpu",
                        "--framework kineto --ranks 8 --tp 2 --pp 2 --steps 2 --slow-rank 3:1.5",
                        "browser_gpu_check.py", "3", "load_ms"});
}

// The memory section (report/cluster_page/memory_section.cpp) of a generated 16-rank job with rank
// 5 holding 4 GB more and rank 10 leaking 200 MB per step, driven by
// tests/report/browser_memory.py.
TEST_F(BrowserRender, MemorySection) {
  check_generated_page(
      {"memory", "--ranks 16 --tp 2 --pp 2 --steps 4 --memory-imbalance 5:4 --memory-leak 10:200",
       "browser_memory.py", "5 10", "screenshot"});
}

// The compare report of the real Kineto pair (full C++ template kernel names) fits: no overflow at
// 1,024 and 1,920 px, at most 5,000 px tall at 1,400 px (the baseline binary's report of this pair
// was 9,246 px tall: names wrapped into rows hundreds of pixels high).
TEST_F(BrowserRender, KinetoCompareReportFits) {
  const bool have = fs::exists(kDriver) &&
                    run(std::string(kPython) + " -c 'import selenium' > /dev/null 2>&1") == 0;
  if (!have) CS_MISSING_TOOL("chromedriver or python3-selenium");
  const fs::path dir = fs::temp_directory_path() / ("cs_fit_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string data = std::string(CS_TEST_DATA) + "/kineto/";
  ASSERT_EQ(run(std::string(CS_BINARY) + " compare " + data + "sampled_rank-0.json.gz " + data +
                "sampled_rank-1.json.gz -q -o " + dir.string() + " > /dev/null 2>&1"),
            0);
  const fs::path html = dir / "comparison_output" / "report.html";
  const fs::path log = screens_dir() / "compare_fit.log";
  const int rc = run(std::string(kPython) + " " + CS_SOURCE_DIR + "/tests/report/browser_fit.py " +
                     html.string() + " " + screens_dir().string() + " compare_kineto 5000 > " +
                     log.string() + " 2>&1");
  std::ifstream f(log);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(rc, 0) << text;
  std::printf("%s", text.c_str());
  fs::remove_all(dir);
}
