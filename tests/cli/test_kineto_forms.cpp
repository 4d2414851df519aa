// Kineto traces in the forms real producers write them (tests/data/kineto-variants): Chrome's
// JSON Array Format gives the same numbers as the object form in compare, top and merge;
// pretty-printed traces give one-line shapes and FLOPs; CPU-only and MTIA traces are named, not
// shown as all-zero sides.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/json/gzip_input.h"
#include "tests/cli/cli_test_util.h"

namespace {

namespace fs = std::filesystem;
using cs::test::read_file;
using cs::test::run_command;
using cs::test::temp_dir;

const std::string kVariants = std::string(CS_TEST_DATA) + "/kineto-variants/";
using cs::test::kBin;

std::string inflate(const std::string& path) {
  simdjson::padded_string text;
  cs::io::Diagnostics diag;
  EXPECT_TRUE(cs::io::load_json_maybe_gzip(path, text, diag));
  return std::string(text.data(), text.size());
}

// The traceEvents array of an object-form trace, as its own document (the array form).
std::string events_array(const std::string& json) {
  size_t at = json.find("\"traceEvents\"");
  at = json.find('[', at);
  int depth = 0;
  bool in_string = false;
  for (size_t i = at; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '[') ++depth;
    if (c == ']' && --depth == 0) return json.substr(at, i - at + 1);
  }
  return {};
}

std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream ls(line);
    while (std::getline(ls, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

// Checks overall_metrics.csv's invariants on both sides: categories add up to Computing and
// Computing + Uncovered + Free = E2E (within 1%).
void expect_overall_invariants(const std::string& csv) {
  const auto rows = csv_rows(csv);
  ASSERT_GE(rows.size(), 18u);
  for (size_t col : {1u, 4u}) {  // base_ms, comparison_ms
    double computing = 0, cats = 0, uncovered = 0, free = 0, e2e = 0;
    for (size_t r = 1; r < rows.size(); ++r) {
      const std::string& m = rows[r][0];
      const double v = std::stod(rows[r][col]);
      if (m == "Computing Time")
        computing = v;
      else if (m == "Uncovered Communication Time")
        uncovered = v;
      else if (m == "Free Time")
        free = v;
      else if (m == "E2E Time")
        e2e = v;
      else
        cats += v;
    }
    EXPECT_GT(computing, 0);
    EXPECT_NEAR(cats, computing, 0.01 * computing);
    EXPECT_NEAR(computing + uncovered + free, e2e, 0.01 * e2e);
  }
}

TEST(KinetoForms, ArrayFormGivesTheObjectFormsNumbers) {
  const fs::path dir = temp_dir("kineto-forms");
  const std::string object_json = inflate(kVariants + "hta_compare_base.json.gz");
  const std::string array_json = events_array(object_json);
  ASSERT_FALSE(array_json.empty());
  fs::create_directories(dir / "in");
  std::ofstream(dir / "in/object.json") << object_json;  // distributedInfo rank 1
  std::ofstream(dir / "in/trace_rank-0.json") << array_json;
  const std::string obj = (dir / "in/object.json").string();
  const std::string arr = (dir / "in/trace_rank-0.json").string();

  // compare: the array side is a Kineto trace with the same numbers: every diff is zero.
  ASSERT_EQ(run_command(kBin + " compare " + obj + " " + arr + " -o " + (dir / "cmp").string(),
                        (dir / "cmp.log").string()),
            0)
      << read_file(dir / "cmp.log");
  EXPECT_EQ(read_file(dir / "cmp.log").find("NPU"), std::string::npos);
  const std::string overall = read_file(dir / "cmp/comparison_output/overall_metrics.csv");
  expect_overall_invariants(overall);
  const auto rows = csv_rows(overall);
  for (size_t r = 1; r < rows.size(); ++r) EXPECT_EQ(rows[r][1], rows[r][4]) << rows[r][0];

  // top: the same table.
  ASSERT_EQ(run_command(kBin + " top -q " + obj + " --csv " + (dir / "a.csv").string()), 0);
  ASSERT_EQ(run_command(kBin + " top -q " + arr + " --csv " + (dir / "b.csv").string()), 0);
  EXPECT_EQ(read_file(dir / "a.csv"), read_file(dir / "b.csv"));
  EXPECT_GT(csv_rows(read_file(dir / "a.csv")).size(), 1u);

  // merge: both timelines, ranks 1 (distributedInfo) and 0 (file name), and says so.
  ASSERT_EQ(run_command(
                kBin + " merge " + (dir / "in").string() + " -o " + (dir / "merged.json").string(),
                (dir / "merge.log").string()),
            0)
      << read_file(dir / "merge.log");
  EXPECT_NE(read_file(dir / "merge.log").find("merged 2 of 2 timelines"), std::string::npos)
      << read_file(dir / "merge.log");
  fs::remove_all(dir);
}

TEST(KinetoForms, ArrayFormatOf2020AndPrettyPrintedTraces) {
  const fs::path dir = temp_dir("kineto-2020");
  const std::string arr = kVariants + "array_format_resnet50_worker0.pt.trace.json.gz";
  ASSERT_EQ(run_command(kBin + " compare " + arr + " " + arr + " -o " + (dir / "c").string(),
                        (dir / "c.log").string()),
            0)
      << read_file(dir / "c.log");
  expect_overall_invariants(read_file(dir / "c/comparison_output/overall_metrics.csv"));

  // Pretty-printed H100 vs MI300 of one model: like compared with like (GEMMs as Matmul,
  // attention as Flash Attention Cube on both, Cijk_* and Triton attn_fwd included).
  ASSERT_EQ(
      run_command(kBin + " compare " + kVariants + "pretty_h100_falconsai.json.gz " + kVariants +
                      "pretty_mi300_falconsai.json.gz -o " + (dir / "amd").string(),
                  (dir / "amd.log").string()),
      0)
      << read_file(dir / "amd.log");
  const std::string overall = read_file(dir / "amd/comparison_output/overall_metrics.csv");
  expect_overall_invariants(overall);
  for (const auto& row : csv_rows(overall)) {
    // 12 attention calls and 73 addmm GEMMs on each side (python3: count of
    // aten::_flash_attention_forward / aten::addmm cpu_ops with a kernel).
    if (row[0] == "Flash Attention Time(Forward)(Cube)") {
      EXPECT_EQ(row[3], "12");
      EXPECT_EQ(row[6], "12");
    }
    if (row[0] == "Flash Attention Time(Forward)(Vector)") {
      EXPECT_EQ(row[6], "0");
    }
    if (row[0] == "Matmul Time") {
      EXPECT_EQ(row[3], "73");
      EXPECT_EQ(row[6], "73");
    }
  }

  // top on the pretty-printed trace: shapes on one line, FLOPs of addmm from them:
  // [[3072], [788, 768], [768, 3072]] -> 2 * 788 * 768 * 3072 = 3718250496.
  ASSERT_EQ(run_command(kBin + " top -q -t 400 " + kVariants +
                        "pretty_h100_falconsai.json.gz --csv " + (dir / "t.csv").string()),
            0);
  const std::string top = read_file(dir / "t.csv");
  EXPECT_EQ(top.find("\n ["), std::string::npos);
  EXPECT_NE(top.find("aten::addmm"), std::string::npos);
  EXPECT_NE(top.find("\"[[3072], [788, 768], [768, 3072], [], []]\""), std::string::npos)
      << top.substr(0, 2000);
  EXPECT_NE(top.find(",3718250496,"), std::string::npos) << top.substr(0, 2000);
  fs::remove_all(dir);
}

TEST(KinetoForms, CpuOnlyAndMtiaTracesAreNamedNotZeroed) {
  const fs::path dir = temp_dir("kineto-cpu");
  for (const char* f : {"cpu_only_rank34.json.gz", "mtia_inference_rank_0.json.gz"}) {
    const std::string log = (dir / "log").string();
    EXPECT_NE(run_command(kBin + " compare " + kVariants + f + " " + kVariants +
                              "hta_compare_base.json.gz -o " + (dir / "c").string(),
                          log),
              0);
    const std::string text = read_file(log);
    EXPECT_EQ(text.find(" inf\n"), std::string::npos) << text;  // no table with inf ratios
    EXPECT_EQ(text.find("Computing Time"), std::string::npos) << text;
    EXPECT_NE(text.find("no device kernels"), std::string::npos) << text;
    if (std::string(f).find("mtia") != std::string::npos) {
      EXPECT_NE(text.find("mtia_ccp_events (1313 events"), std::string::npos) << text;
    } else {
      EXPECT_NE(text.find("CPU-only trace"), std::string::npos) << text;
    }
    EXPECT_NE(run_command(kBin + " top " + kVariants + f, log), 0);
    EXPECT_NE(read_file(log).find("no device kernels"), std::string::npos);
  }
  fs::remove_all(dir);
}

}  // namespace
