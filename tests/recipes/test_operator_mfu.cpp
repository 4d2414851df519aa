// The operator_mfu recipe.
// - By hand: FLOPs messages, data types to peaks, the chip's info.json, kernel MFU over records
//   (bounds, duplicates, zero durations, an unsupported type) and the module average per kernel
//   position.
// - A one-rank job whose tables are written here (two BF16 matmul kernels and an INT8 one under
//   two FLOPs records, one module): every value of OperatorMFU and ModuleMFU worked out by hand
//   (msprof-analyze 8399c1cd gives the same table).
// - Golden: `cluster -m operator_mfu --export_type db` on `generate JOB --ranks 4 --tp 2 --pp 2
//   --steps 2 --export-type db --mstx-modules --mfu-flops` (and without --mfu-flops: no chip, no
//   FLOPs) writes exactly the tables msprof-analyze 8399c1cd wrote
//   (tests/data/generated-db/tp2pp2s2_operator_mfu{,_nochip}__db; tests/data/SOURCES.md), the same
//   bytes under mpirun -np 1, 2 and 4.
// - The text export writes OperatorMfu/operator_mfu_{kernel,module}_{rank}.xlsx that openpyxl
//   reads as msprof-analyze 8399c1cd's workbooks for the same job, cell by cell (values, types,
//   styles, merges, widths; tests/data/generated-db/tp2pp2s2_operator_mfu__text), the same bytes
//   under mpirun -np 1, 2 and 4. The real sample (no info.json, no mstx), MindSpore's and
//   msprof's layouts (no PYTORCH_API) get nothing, as in msprof-analyze, and the log says why.
// - Bad input: a garbage info.json, garbage FLOPs messages and op times, a rank database that is
//   not SQLite: each named, the other ranks analysed, the tables msprof-analyze 8399c1cd wrote on
//   the same mfu_job (tests/data/generated-db/tp2pp2s2_operator_mfu_bad__db).
// - pandas_times: time columns exact while all are integers, else through float64 as pandas
//   parses them.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "msprof_analyze/recipes/operator_mfu/chip_peak.h"
#include "msprof_analyze/recipes/operator_mfu/kernel_mfu.h"
#include "msprof_analyze/recipes/operator_mfu/pandas_times.h"
#include "recipes/rank_copy_test_util.h"
#include "recipes/recipe_cli_test_util.h"
#include "recipes/recipe_test_util.h"
#include "recipes/workbook_test_util.h"
#include "support/missing_tool.h"

namespace fs = std::filesystem;
using namespace cs::recipes::operator_mfu;
using cs::test::exec_sql;
using cs::test::rank_db;

namespace {

const fs::path& mfu_scratch() {
  static const cs::test::ScratchDir dir("operator-mfu");
  return dir.path();
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

TEST(OperatorMfu, FlopsMessagesAndPeakTypes) {
  auto p = parse_flops(std::string("204800000-torch.matmul"));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->flops, 204800000);
  EXPECT_EQ(p->name, "torch.matmul");
  EXPECT_FALSE(p->real);
  p = parse_flops(std::string("12-a-b\n"));  // the name keeps later dashes; a final newline goes
  ASSERT_TRUE(p);
  EXPECT_EQ(p->name, "a-b");
  for (const char* bad : {"x-1", "12-", "-12-x", "0-x", "12-a\nb", "12 -x", ""})
    EXPECT_FALSE(parse_flops(std::string(bad))) << bad;
  EXPECT_FALSE(parse_flops(std::nullopt));
  p = parse_flops(std::string("99999999999999999999-big"));  // beyond int64: a float
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->real);
  EXPECT_EQ(p->value(), 1e20);

  EXPECT_EQ(peak_type("DT_BF16;INT8"), PeakType::kFloat16);
  EXPECT_EQ(peak_type(" int8 ;FLOAT"), PeakType::kInt8);
  EXPECT_EQ(peak_type(";;float16"), PeakType::kFloat16);
  EXPECT_EQ(peak_type(""), PeakType::kFloat16);
  EXPECT_EQ(peak_type(" ; "), PeakType::kFloat16);
  EXPECT_EQ(peak_type("INT32;FLOAT"), PeakType::kUnsupported);
}

TEST(OperatorMfu, ChipPeakFromInfoJson) {
  const fs::path rank = mfu_scratch() / "chip" / "r_ascend_pt";
  ChipPeak chip;
  std::string problem;
  EXPECT_FALSE(read_chip_peak(rank.string(), chip, problem));
  EXPECT_NE(problem.find("info.json"), std::string::npos);
  // device_7 has no info file; device_3 two levels down has one.
  fs::create_directories(rank / "a_device" / "device_7");
  write(rank / "PROF_1" / "device_3" / "info.json.3",
        R"({"DeviceInfo": [{"ai_core_num": 20, "aic_frequency": " 1500 "}]})");
  ASSERT_TRUE(read_chip_peak(rank.string(), chip, problem)) << problem;
  EXPECT_EQ(chip.file, (rank / "PROF_1" / "device_3" / "info.json.3").string());
  EXPECT_EQ(chip.peak_flops(PeakType::kFloat16), 20.0 * 1500 * 8192 * 1e6);
  EXPECT_EQ(chip.peak_flops(PeakType::kInt8), 20.0 * 1500 * 16384 * 1e6);
  for (const char* bad : {"{not json", R"({"DeviceInfo": []})", R"({"DeviceInfo": [{}]})",
                          R"({"DeviceInfo": [{"ai_core_num": "20", "aic_frequency": "1500"}]})",
                          R"({"DeviceInfo": [{"ai_core_num": 20, "aic_frequency": "fast"}]})",
                          R"({"DeviceInfo": [{"ai_core_num": 0, "aic_frequency": 1500}]})"}) {
    write(rank / "PROF_1" / "device_3" / "info.json.3", bad);
    EXPECT_FALSE(read_chip_peak(rank.string(), chip, problem)) << bad;
    EXPECT_EQ(chip.file, (rank / "PROF_1" / "device_3" / "info.json.3").string());
  }
}

TEST(OperatorMfu, KernelMfuByHand) {
  ChipPeak chip;
  chip.ai_core_num = 10;
  chip.aic_frequency_mhz = 1000;  // peak 8.192e13 FLOPS at 16 bits
  // Ops x [100,110] (kernels a, b), y [200,210] (kernel c, 0 ns), z [300,310] (kernel d,
  // listed twice by the join), w [400,410] (kernel e, INT32 inputs).
  const std::vector<OpKernel> ops = {
      {"a", 1000, 2000, "x", 100, 110}, {"b", 2000, 6000, "x", 100, 110},
      {"c", 7000, 7000, "y", 200, 210}, {"d", 8000, 9000, "z", 300, 310},
      {"d", 8000, 9000, "z", 300, 310}, {"e", 9000, 9100, "w", 400, 410}};
  const std::vector<KernelShape> shapes = {{"a", 1000, 2000, 1000, "1,2", "DT_BF16", "3"},
                                           {"b", 2000, 6000, 4000, "4", "INT8", "5"},
                                           {"c", 7000, 7000, 0, "6", "", "7"},
                                           {"d", 8000, 9000, 1000, "N/A", "", "8"},
                                           {"e", 9000, 9100, 100, "9", "INT32", "10"}};
  // [100,200]: ops x and y (both bounds in); [300,310]: z, whose kernel has "N/A" shapes;
  // [400,400]: empty span, skipped; [399,401]: w's INT32 kernel.
  const std::vector<FlopsRange> ranges = {{100, 200, std::string("40960000-mm")},
                                          {300, 310, std::string("1000-nz")},
                                          {400, 400, std::string("1000-none")},
                                          {399, 401, std::string("5-int32")},
                                          {100, 200, std::string("garbage")}};
  MfuSkips skips;
  const auto rows = kernel_mfu(ops, shapes, ranges, chip, skips);
  ASSERT_EQ(rows.size(), 2u);  // c has no time, d no shapes, e no peak
  // a: 40960000 FLOPs in 1 us = 4.096e13 FLOPS = half the peak; b: 4 us, an eighth (the first
  // kernel's BF16 picks the 16-bit peak for the whole record).
  EXPECT_EQ(*rows[0].kernel, "a");
  EXPECT_DOUBLE_EQ(rows[0].mfu, 0.5);
  EXPECT_DOUBLE_EQ(rows[0].actual_tflops, 40.96);
  EXPECT_EQ(rows[0].peak, 8.192e13);
  EXPECT_EQ(*rows[1].kernel, "b");
  EXPECT_DOUBLE_EQ(rows[1].mfu, 0.125);
  EXPECT_EQ(rows[1].duration, 4000);
  EXPECT_EQ(rows[1].flops.name, "mm");
  EXPECT_EQ(skips.unsupported, std::vector<std::string>{"INT32"});
  EXPECT_EQ(skips.malformed, 1u);

  // Averages per kernel position over the calls, positive MFUs only.
  EXPECT_EQ(average_mfu({{0, 1}, {2, 3}}, {0.5, -1, 0.25, 0.3}), "37.5%,30.0%");
  EXPECT_EQ(average_mfu({{0, 1}}, {-1, 0.123456}), "12.35%");
  EXPECT_EQ(average_mfu({{0}}, {-1}), "");
}

TEST(OperatorMfu, PandasTimes) {
  using cs::frame::Cell;
  cs::frame::Frame a, b;
  a.add("t").push_back(Cell::text("1708156100003087288"));
  a.columns[0].push_back(Cell::text(" 12 "));
  b.add("t").push_back(Cell::integer(9007199254740993));  // 2^53 + 1
  // All integers: exact.
  EXPECT_EQ(pandas_times({&a, &b}, 0),
            (std::vector<int64_t>{1708156100003087288, 12, 9007199254740993}));
  // One that is no number: every value through a double (pandas' parse of the long text keeps
  // 17 digits, then multiplies by 100), the bad one 0.
  b.columns[0].push_back(Cell::text("soon"));
  b.columns[0].push_back(Cell::null());
  b.columns[0].push_back(Cell::real(7.9));
  EXPECT_EQ(pandas_times({&a, &b}, 0),
            (std::vector<int64_t>{1708156100003087104, 12, 9007199254740992, 0, 0, 7}));
  EXPECT_EQ(pandas_xstrtod("4002244281428215836"),
            4.002244281428216e+18);  // not 4.0022442814282163e+18
  EXPECT_EQ(pandas_xstrtod("-1.5e3"), -1500.0);
  EXPECT_TRUE(std::isnan(pandas_xstrtod("1e")));
  EXPECT_TRUE(std::isnan(pandas_xstrtod("")));
}

fs::path generate_mfu_job(const std::string& name, const std::string& args) {
  return cs::test::generate_job(mfu_scratch() / name, "--export-type db " + args);
}

const fs::path& mfu_job() {
  static const fs::path j =
      generate_mfu_job("tp2pp2", "--ranks 4 --tp 2 --pp 2 --steps 2 --mstx-modules --mfu-flops");
  return j;
}

fs::path run_mfu(const fs::path& input, const std::string& launcher, const std::string& name,
                 const std::string& type, int expected_rc = 0) {
  return cs::test::run_recipe(input, mfu_scratch() / name, "operator_mfu", type, launcher,
                              expected_rc);
}

std::string log_of(const std::string& name) {
  return cs::test::read_file(mfu_scratch() / (name + ".log"));
}

fs::path rank_dir(const fs::path& job, int r) {
  return rank_db(job, r).parent_path().parent_path();
}

TEST(OperatorMfu, HandMadeRankByHand) {
  const fs::path j = generate_mfu_job("hand", "--ranks 1 --steps 1 --mfu-flops");
  // Op aten::matmul [1000,1100] launches mmA (1 us) and mmA2 (2 us), BF16; op aten::mm_int8
  // [1200,1300] launches mmB (0.5 us), INT8. Records: 204800000 FLOPs over [1000,1100] (the op
  // starts on the bound), 100000000 over [1150,1300]; module Net over both ops.
  exec_sql(rank_db(j, 0), R"(
DELETE FROM TASK; DELETE FROM COMPUTE_TASK_INFO; DELETE FROM COMMUNICATION_OP;
DELETE FROM COMMUNICATION_TASK_INFO; DELETE FROM PYTORCH_API; DELETE FROM CONNECTION_IDS;
DELETE FROM MSTX_EVENTS;
INSERT INTO STRING_IDS VALUES (900001,'aten::matmul'),(900002,'aten::mm_int8'),(900003,'mmA'),
 (900004,'mmA2'),(900005,'mmB'),(900006,'"2048,64;64,1024"'),(900007,'DT_BF16;DT_BF16'),
 (900008,'"2048,1024"'),(900009,' int8 ;INT8'),(900010,'mfu_flops'),
 (900011,'204800000-torch.matmul'),(900012,'100000000-int8mm'),(900013,'Module'),(900014,'Net');
INSERT INTO PYTORCH_API VALUES ('1000','1100',1,11,900001,NULL,NULL,NULL,NULL,NULL,50001,0),
 ('1200','1300',1,12,900002,NULL,NULL,NULL,NULL,NULL,50001,0);
INSERT INTO CONNECTION_IDS VALUES (11,1),(12,2);
INSERT INTO TASK VALUES (5000,6000,0,1,1,1,0,0,2,1,0,0),(6000,8000,0,1,2,1,0,0,2,2,0,0),
 (9000,9500,0,2,3,1,0,0,2,3,0,0);
INSERT INTO COMPUTE_TASK_INFO VALUES (900003,1,20,0,0,0,0,900007,900006,0,0,900008,0,0),
 (900004,2,20,0,0,0,0,900007,900006,0,0,900008,0,0),
 (900005,3,20,0,0,0,0,900009,900006,0,0,900008,0,0);
INSERT INTO MSTX_EVENTS VALUES (1000,1100,2,1,NULL,900011,1,1,900010,NULL,0),
 (1150,1300,2,2,NULL,900012,1,1,900010,NULL,0),(900,1400,2,3,NULL,900014,1,1,900013,NULL,0);
)");
  const fs::path db = run_mfu(j, "", "hand-out", "db") / "cluster_analysis.db";
  // The generated chip: 24 AI Cores at 1800 MHz, 353.8944 TFLOPS at 16 bits, twice at int8.
  // mmA: 2.048e8 FLOPs / 1 us = 204.8 TFLOPS, 204.8 / 353.8944 = 0.57870 -> 0.5787; mmA2 half
  // that (0.289351... -> 0.2894); mmB: 1e8 / 0.5 us = 200 TFLOPS / 707.7888 = 0.282570 -> 0.2826.
  // Every kernel has an MFU: durations and FLOPs stay integers.
  EXPECT_EQ(
      cs::test::dump_query(db, "SELECT * FROM OperatorMFU"),
      "i:0|t:aten::matmul|t:mmA|i:5000|i:6000|i:1000|r:0.57869999999999999|r:204.80000000000001|"
      "r:353.88999999999999|i:204800000|t:torch.matmul|t:2048,64;64,1024|t:2048,1024\n"
      "i:0|t:aten::matmul|t:mmA2|i:6000|i:8000|i:2000|r:0.28939999999999999|r:102.40000000000001|"
      "r:353.88999999999999|i:204800000|t:torch.matmul|t:2048,64;64,1024|t:2048,1024\n"
      "i:0|t:aten::mm_int8|t:mmB|i:9000|i:9500|i:500|r:0.28260000000000002|r:200|"
      "r:707.78999999999996|i:100000000|t:int8mm|t:2048,64;64,1024|t:2048,1024\n");
  // The module's rows: per op, its kernels' time and the MFU per kernel position in percent.
  EXPECT_EQ(cs::test::dump_query(db, "SELECT * FROM ModuleMFU"),
            "i:0|t:|t:Net|t:aten::matmul|t:mmA, mmA2|r:3000|r:3000|i:1|t:57.87%,28.94%\n"
            "i:0|t:|t:Net|t:aten::mm_int8|t:mmB|r:500|r:500|i:1|t:28.26%\n");
}

TEST(OperatorMfu, MatchesMsprofAnalyzeAtAnyProcessCount) {
  const fs::path single = run_mfu(mfu_job(), "", "nolauncher", "db");
  cs::test::expect_same_outputs(
      single, fs::path(CS_TEST_DATA) / "generated-db" / "tp2pp2s2_operator_mfu__db");
  cs::test::expect_same_at_process_counts(single, "", [](const auto& launcher, const auto& name) {
    return run_mfu(mfu_job(), launcher, name, "db");
  });
  // Without the chip's information and the FLOPs: module rows only, without avg_mfu.
  const fs::path nochip =
      generate_mfu_job("nochip", "--ranks 4 --tp 2 --pp 2 --steps 2 --mstx-modules");
  cs::test::expect_same_outputs(
      run_mfu(nochip, "", "nochip-out", "db"),
      fs::path(CS_TEST_DATA) / "generated-db" / "tp2pp2s2_operator_mfu_nochip__db");
  EXPECT_NE(log_of("nochip-out").find("info.json"), std::string::npos);
}

TEST(OperatorMfu, TextWorkbooksReadAsMsprofAnalyzes) {
  if (cs::test::run_command("/usr/bin/python3 -c 'import openpyxl'", "/dev/null") != 0)
    CS_MISSING_TOOL("python3-openpyxl");
  if (cs::test::run_command("unzip -v", "/dev/null") != 0) CS_MISSING_TOOL("unzip");
  const fs::path text = run_mfu(mfu_job(), "", "text", "text");
  cs::test::expect_same_workbooks(
      text, fs::path(CS_TEST_DATA) / "generated-db" / "tp2pp2s2_operator_mfu__text",
      (mfu_scratch() / "xlsx").string());
  cs::test::expect_same_at_process_counts(text, "text-",
                                          [](const auto& launcher, const auto& name) {
                                            return run_mfu(mfu_job(), launcher, name, "text");
                                          });
}

TEST(OperatorMfu, RealSampleAndOtherLayoutsWriteNothing) {
  // The real sample has no info.json and no mstx events: msprof-analyze writes nothing either.
  const fs::path real =
      run_mfu(fs::path(CS_TEST_DATA) / "ascend-real" / "db_level1", "", "real", "db", 1);
  EXPECT_EQ(cs::test::written_files(real), "");
  EXPECT_NE(log_of("real").find("info.json"), std::string::npos);
  // MindSpore's and msprof's databases have no framework ops.
  for (const char* fw : {"mindspore", "msprof"}) {
    const fs::path j = generate_mfu_job(
        std::string(fw) + "-job",
        "--ranks 2 --steps 1 --mfu-flops --mstx-modules --framework " + std::string(fw));
    EXPECT_EQ(cs::test::written_files(run_mfu(j, "", std::string(fw) + "-out", "db", 1)), "");
    EXPECT_NE(log_of(std::string(fw) + "-out").find("no table PYTORCH_API"), std::string::npos)
        << fw;
  }
}

TEST(OperatorMfu, BadInputIsNamedAndTheOtherRanksKept) {
  const fs::path bad = mfu_scratch() / "bad";
  fs::copy(mfu_job(), bad, fs::copy_options::recursive);
  // Rank 1: its info.json is garbage; rank 2: FLOPs messages garbage or NULL, some op times not
  // numbers (read as 0, as pandas coerces them); rank 3: its database is not SQLite.
  fs::path info;
  for (const auto& f : fs::recursive_directory_iterator(rank_dir(bad, 1)))
    if (f.path().filename().string().starts_with("info.json.")) info = f.path();
  ASSERT_FALSE(info.empty());
  write(info, "{\"DeviceInfo\": [{\"ai_core_num\": ");
  exec_sql(rank_db(bad, 2),
           "UPDATE STRING_IDS SET value = 'many-' || value WHERE value LIKE '%-torch%';"
           "UPDATE MSTX_EVENTS SET message = NULL WHERE rowid % 3 = 0 AND domainId = (SELECT id "
           "FROM STRING_IDS WHERE value = 'mfu_flops');"
           "UPDATE PYTORCH_API SET startNs = 'soon' WHERE rowid % 5 = 0;");
  const fs::path db3 = rank_db(bad, 3);
  fs::remove(db3);
  write(db3, std::string(4096, 'x'));
  // Exit 3: written, but a rank could not be read.
  const fs::path out = run_mfu(bad, "", "bad-out", "db", 3) / "cluster_analysis.db";
  const std::string log = log_of("bad-out");
  EXPECT_NE(log.find(info.string()), std::string::npos) << log;
  EXPECT_NE(log.find(db3.string()), std::string::npos) << log;
  EXPECT_NE(log.find("<FLOPs>-<name>"), std::string::npos) << log;
  // msprof-analyze gives the same tables (rank 2's op times go through float64 once one is not
  // a number); rank 1 and 2 keep their module rows, without MFU.
  cs::test::expect_same_outputs(
      out.parent_path(), fs::path(CS_TEST_DATA) / "generated-db" / "tp2pp2s2_operator_mfu_bad__db");
  EXPECT_EQ(cs::test::dump_query(out, "SELECT DISTINCT rank_id FROM OperatorMFU"), "i:0\n");
  EXPECT_EQ(cs::test::dump_query(out,
                                 "SELECT rank_id, count(*) > 0, max(avg_mfu) <> '' FROM "
                                 "ModuleMFU GROUP BY rank_id"),
            "i:0|i:1|i:1\ni:1|i:1|i:0\ni:2|i:1|i:0\n");
}

}  // namespace
