// The calibrate_npu_gpu recipe.
// - difflib's ratio and get_close_matches on strings whose values Python 3.11's difflib gave
//   (including its autojunk rule and code points, not bytes).
// - The GPU side on an event list worked out by hand: NVTX ranges nest per thread, only module
//   marker names make modules, the op is the innermost "::" range cut at ",", a kernel outside
//   every module is left out, an end closes the thread's last range, ties start < end < launch.
// - The comparison on rows worked out by hand: paths paired by rule, by fuzzy match or not at
//   all, ops paired by rank of time, shares, ratio and difference, blanks, order, column types.
// - Golden: `cluster -m calibrate_npu_gpu --export_type db` on `generate JOB --ranks 4 --tp 2
//   --pp 2 --steps 2 --export-type db --nsys-sqlite GPU` writes exactly the tables msprof-analyze
//   8399c1cd wrote (with --dump_intermediate_results, and with --fuzzy_threshold 0;
//   tests/data/generated-db/tp2pp2_calibrate_npu_gpu*__db, tests/data/SOURCES.md), the same
//   bytes under mpirun -np 1, 2 and 4.
// - The text export (with --dump_intermediate_results) writes CalibrateNpuGpu/
//   {compare_profile,npu,gpu}_report_{rank}.xlsx that openpyxl reads as msprof-analyze
//   8399c1cd's workbooks for the same job, cell by cell (values, types, styles, merges, widths;
//   tests/data/generated-db/tp2pp2_calibrate_npu_gpu__text), the same bytes under mpirun -np 1,
//   2 and 4.
// - Bad input: no path, a missing, corrupt or table-less file: one message naming the file and
//   what to do, nonzero exit; a device the GPU file lacks: that rank skipped (exit 3).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "msprof_analyze/recipes/calibrate_npu_gpu/close_match.h"
#include "msprof_analyze/recipes/calibrate_npu_gpu/gpu_modules.h"
#include "msprof_analyze/recipes/calibrate_npu_gpu/module_compare.h"
#include "recipes/recipe_test_util.h"
#include "recipes/workbook_test_util.h"
#include "support/missing_tool.h"

namespace fs = std::filesystem;
namespace cal = cs::recipes::calibrate_npu_gpu;

namespace {

TEST(CalibrateNpuGpu, DifflibRatios) {
  EXPECT_DOUBLE_EQ(cal::sequence_ratio("abcd", "bcde"), 0.75);
  EXPECT_DOUBLE_EQ(cal::sequence_ratio("/Qwen2Model/Qwen2DecoderLayer",
                                       "Qwen2Model/[Backward]Qwen2DecoderLayer"),
                   0.835820895522388);
  EXPECT_DOUBLE_EQ(cal::sequence_ratio("\xC3\xBCn\xC3\xAF"
                                       "code/M\xC3\xB6"
                                       "dule",
                                       "unicode/Module"),
                   0.7857142857142857);
  // Autojunk: in b (200+ characters) every character is "popular", so nothing matches...
  std::string a(150, 'x'), b;
  for (int i = 0; i < 30; ++i) a += "abc";
  a += std::string(20, 'y');
  for (int i = 0; i < 60; ++i) b += "ab";
  b += std::string(100, 'x') + std::string(50, 'c');
  EXPECT_DOUBLE_EQ(cal::sequence_ratio(a, b), 0.0);
  // ... or only the rare ones start a match.
  EXPECT_DOUBLE_EQ(cal::sequence_ratio("qxxxqz", "q" + std::string(250, 'x') + "qz"),
                   0.04633204633204633);
  // The best candidate at or above the cutoff; on a tie the greater string; else none.
  EXPECT_EQ(cal::best_close_match("Qwen2Model/Qwen2Attention",
                                  {"/Qwen2Model/Qwen2Attentio", "/Qwen2Model/Qwen2Attention",
                                   "/Qwen2Model/Qwen2Attentiom"},
                                  0.6),
            "/Qwen2Model/Qwen2Attention");
  EXPECT_EQ(cal::best_close_match("ab", {"ac", "ad"}, 0.5), "ad");
  EXPECT_EQ(cal::best_close_match("ab", {"xy"}, 0.6), std::nullopt);
}

std::string show(const cal::GpuProfile& p) {
  std::string s;
  for (const auto& [device, rows] : p)
    for (const auto& r : rows)
      s += std::to_string(device) + ":" + r.parent + "|" + r.module + "|" + r.op + "|" + r.kernel +
           "|" + std::to_string(r.total_ns) + "|" + std::to_string(r.count) + "\n";
  return s;
}

TEST(CalibrateNpuGpu, GpuKernelsByHand) {
  const std::vector<std::string> names = {
      "Qwen2Model", "Qwen2Attention", "aten::mm, seq = 1", "gemm", "Block", "add", ",aten::odd"};
  // Thread 7: Qwen2Model [0,100] > Block [5,95] > Qwen2Attention [10,50] > aten::mm [12,40];
  // Block is no module (no marker in its name). Thread 8: only an op range, so its kernel has
  // no module. At t=50 and t=60 a range starts when another ends: the start is taken first, so
  // the end closes the new range (the thread's last opened): [50,60] is closed at 50, the odd
  // op range (",aten::odd": an empty op, no op) at 60, and the first Qwen2Attention only at 70,
  // so the kernel at 60 is still in it.
  const std::vector<cal::NvtxRange> ranges = {{0, 100, 7, 0}, {5, 95, 7, 4},  {10, 50, 7, 1},
                                              {12, 40, 7, 2}, {50, 60, 7, 1}, {60, 70, 7, 6},
                                              {0, 10, 8, 2}};
  const std::vector<cal::GpuLaunch> launches = {
      {13, 7, 30, 0, 3},  // in mm inside Qwen2Attention inside Qwen2Model
      {20, 7, 10, 0, 3},  // the same again: summed
      {45, 7, 5, 1, 5},   // after mm closed, device 1: op "None"
      {60, 7, 4, 0, 5},   // ties: [60,70] opened, [50,60]'s end closed it, Qwen2Attention open
      {97, 7, 2, 0, 5},   // in Qwen2Model only
      {150, 7, 9, 0, 5},  // outside every module: left out
      {5, 8, 9, 0, 3}};   // thread 8: no module
  EXPECT_EQ(show(cal::attribute_kernels(names, ranges, launches)),
            "0:|Qwen2Model|None|add|2|1\n"
            "0:/Qwen2Model|Qwen2Attention|None|add|4|1\n"
            "0:/Qwen2Model|Qwen2Attention|aten::mm|gemm|40|2\n"
            "1:/Qwen2Model|Qwen2Attention|None|add|5|1\n");
}

std::string show(const cs::frame::Frame& f) {
  std::string s;
  for (size_t r = 0; r < f.rows(); ++r) {
    for (const auto& c : f.columns) {
      const auto& cell = c.cells[r];
      s += cell.kind == cs::frame::Cell::Kind::kText   ? cell.str()
           : cell.kind == cs::frame::Cell::Kind::kInt  ? std::to_string(cell.i()) + "i"
           : cell.kind == cs::frame::Cell::Kind::kReal ? std::to_string(cell.num()) + "r"
                                                       : "null";
      s += "|";
    }
    s += "\n";
  }
  return s;
}

TEST(CalibrateNpuGpu, CompareByHand) {
  // GPU: /M/A (two ops), /B (one op), /G (GPU only). NPU: M/AscendA (fuzzy to /M/A once
  // "Ascend" is removed; three ops, the third alone), /B (rule), Zzz/Q (no match).
  const std::vector<cal::OpRow> gpu = {{"/M", "A", "mm", "k1", 30, 15, 2},
                                       {"/M", "A", "add", "k2", 10, 10, 1},
                                       {"", "B", "None", "k3", 20, 20, 1},
                                       {"", "G", "x", "k4", 40, 40, 1}};
  const std::vector<cal::OpRow> npu = {{"M", "AscendA", "mm", "n1", 60, 30, 2},
                                       {"M", "AscendA", "add", "n2", 5, 5, 1},
                                       {"M", "AscendA", "gelu", "n3", 15, 15, 1},
                                       {"", "B", "None", "n4", 10, 10, 1},
                                       {"Zzz", "Q", "q", "n5", 10, 10, 1}};
  // Paired within a path by rank of time: GPU mm (30) with NPU mm (60), GPU add (10) with NPU
  // gelu (15), NPU add (5) alone. Shares: NPU 100 us in all, GPU 100 us. /M/A: NPU 80 vs GPU 40
  // (ratio 2.00, +40); /B: 10 vs 20. Rows by GPU parent, then difference and GPU time
  // descending, a blank first. A side missing from some row: its counts are floats (pandas'
  // NaN), its blanks " ". (The same as msprof-analyze's Comparator gives on these rows.)
  EXPECT_EQ(show(cal::compare_frame(gpu, npu, true)),
            "|G||G| | | | | | | |x|1.000000r|k4|40.000000r|40.00%|40.000000r| | |\n"
            "|B||B|rule|None|1.000000r|n4|10.000000r|10.00%|10.000000r|None|1.000000r|k3|"
            "20.000000r|20.00%|20.000000r|0.50|-10.000000r|\n"
            "/M|A|M|AscendA|fuzzy|add|1.000000r|n2|5.000000r|5.00%|5.000000r| | | | | | |2.00|"
            "40.000000r|\n"
            "/M|A|M|AscendA|fuzzy|mm|2.000000r|n1|60.000000r|60.00%|30.000000r|mm|2.000000r|k1|"
            "30.000000r|30.00%|15.000000r|2.00|40.000000r|\n"
            "/M|A|M|AscendA|fuzzy|gelu|1.000000r|n3|15.000000r|15.00%|15.000000r|add|1.000000r|k2|"
            "10.000000r|10.00%|10.000000r|2.00|40.000000r|\n"
            "Zzz|Q|Zzz|Q|rule|q|1.000000r|n5|10.000000r|10.00%|10.000000r| | | | | | | | |\n");
  // Fuzzy matching off: M/A stays apart from /M/A (4 GPU rows, 4 NPU rows alone).
  const cs::frame::Frame off = cal::compare_frame(gpu, npu, false);
  EXPECT_EQ(off.rows(), 8u);
  EXPECT_EQ(show(off).find("fuzzy"), std::string::npos);
}

const fs::path& calibrate_scratch() {
  static const cs::test::ScratchDir dir("calibrate-npu-gpu");
  return dir.path();
}

// The generated pair: the NPU job and its GPU twin.
const fs::path& calibrate_job() {
  static const fs::path j = [] {
    const fs::path p = calibrate_scratch() / "tp2pp2";
    const int rc = cs::test::run_command(
        std::string(CS_BINARY) + " generate " + p.string() +
            " --ranks 4 --tp 2 --pp 2 --steps 2 --export-type db --nsys-sqlite " +
            (calibrate_scratch() / "gpu.sqlite").string(),
        (calibrate_scratch() / "generate.log").string());
    EXPECT_EQ(rc, 0) << cs::test::read_file(calibrate_scratch() / "generate.log");
    return p;
  }();
  return j;
}

fs::path run_calibrate(const std::string& launcher, const std::string& name,
                       const std::string& args, int expected_rc = 0) {
  const fs::path out = calibrate_scratch() / name;
  const int rc =
      cs::test::run_command(launcher + CS_BINARY + " cluster -d " + calibrate_job().string() +
                                " -o " + out.string() + " -m calibrate_npu_gpu " + args,
                            out.string() + ".log");
  EXPECT_EQ(rc, expected_rc) << cs::test::read_file(out.string() + ".log");
  return out / "cluster_analysis_output";
}

std::string gpu_arg(const fs::path& p = calibrate_scratch() / "gpu.sqlite") {
  return " --baseline_profiling_path " + p.string();
}

TEST(CalibrateNpuGpu, MatchesMsprofAnalyzeAtAnyProcessCount) {
  calibrate_job();
  const std::string args = "--export_type db --dump_intermediate_results" + gpu_arg();
  const fs::path single = run_calibrate("", "single", args);
  cs::test::expect_same_outputs(
      single, fs::path(CS_TEST_DATA) / "generated-db" / "tp2pp2_calibrate_npu_gpu__db");
  const auto expected = cs::test::read_tree(single);
  for (int np : {1, 2, 4})
    EXPECT_TRUE(cs::test::read_tree(run_calibrate(cs::test::mpirun(np), "np" + std::to_string(np),
                                                  args)) == expected)
        << "np=" << np;
  cs::test::expect_same_outputs(
      run_calibrate("", "nofuzzy", "--export_type db --fuzzy_threshold 0" + gpu_arg()),
      fs::path(CS_TEST_DATA) / "generated-db" / "tp2pp2_calibrate_npu_gpu_nofuzzy__db");
}

TEST(CalibrateNpuGpu, BadGpuFile) {
  calibrate_job();
  const auto log = [](const std::string& name) {
    return cs::test::read_file(calibrate_scratch() / (name + ".log"));
  };
  run_calibrate("", "none", "", 2);
  EXPECT_NE(log("none").find("--baseline_profiling_path FILE"), std::string::npos);
  run_calibrate("", "missing", gpu_arg(calibrate_scratch() / "nothere.sqlite"), 2);
  EXPECT_NE(log("missing").find("nothere.sqlite: no such file"), std::string::npos);
  { std::ofstream(calibrate_scratch() / "corrupt.sqlite") << std::string(5000, 'z'); }
  run_calibrate("", "corrupt", gpu_arg(calibrate_scratch() / "corrupt.sqlite"), 2);
  EXPECT_NE(log("corrupt").find("corrupt.sqlite"), std::string::npos);
  EXPECT_NE(log("corrupt").find("nsys export --type sqlite"), std::string::npos);
  // A database without the CUDA tables.
  const fs::path no_cuda = calibrate_scratch() / "no_cuda.sqlite";
  fs::copy_file(calibrate_scratch() / "gpu.sqlite", no_cuda, fs::copy_options::overwrite_existing);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(no_cuda.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  run_calibrate("", "no_cuda", gpu_arg(no_cuda), 2);
  EXPECT_NE(log("no_cuda").find("no_cuda.sqlite: the Nsight Systems export has no table "
                                "CUPTI_ACTIVITY_KIND_RUNTIME"),
            std::string::npos);
  // Device 2's kernels gone: rank 2 is skipped, the others compared (exit 3).
  const fs::path part = calibrate_scratch() / "part.sqlite";
  fs::copy_file(calibrate_scratch() / "gpu.sqlite", part, fs::copy_options::overwrite_existing);
  ASSERT_EQ(sqlite3_open(part.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId = 2", nullptr, nullptr,
               nullptr);
  sqlite3_close(db);
  const fs::path out = run_calibrate("", "part", "--export_type db" + gpu_arg(part), 3);
  EXPECT_NE(log("part").find("device 2"), std::string::npos);
  const std::string tables = cs::test::dump_sqlite(out / "cluster_analysis.db");
  EXPECT_NE(tables.find("CompareProfileReportRank3"), std::string::npos);
  EXPECT_EQ(tables.find("CompareProfileReportRank2"), std::string::npos);
}

TEST(CalibrateNpuGpu, TextWorkbooksReadAsMsprofAnalyzes) {
  if (cs::test::run_command("/usr/bin/python3 -c 'import openpyxl'", "/dev/null") != 0)
    CS_MISSING_TOOL("python3-openpyxl");
  if (cs::test::run_command("unzip -v", "/dev/null") != 0) CS_MISSING_TOOL("unzip");
  calibrate_job();
  const std::string args = "--export_type text --dump_intermediate_results" + gpu_arg();
  const fs::path text = run_calibrate("", "text", args);
  cs::test::expect_same_workbooks(
      text, fs::path(CS_TEST_DATA) / "generated-db" / "tp2pp2_calibrate_npu_gpu__text",
      (calibrate_scratch() / "xlsx").string());
  const auto expected = cs::test::read_tree(text);
  for (int np : {1, 2, 4})
    EXPECT_TRUE(cs::test::read_tree(run_calibrate(
                    cs::test::mpirun(np), "text-np" + std::to_string(np), args)) == expected)
        << "np=" << np;
}

}  // namespace
