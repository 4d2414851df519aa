// The module_statistic recipe.
// - module_statistic / backward_modules on trees worked out by hand: ops nested by host time,
//   kernels summed per op, repeated modules with different op sequences numbered "_0"/"_1", ops
//   outside every module left out, backward modules from forward/backward links.
// - Golden: `cluster -m module_statistic --export_type db` on `generate JOB --ranks 4 --tp 2
//   --pp 2 --steps 2 --export-type db --mstx-modules` writes exactly the ModuleStatistic table
//   msprof-analyze 8399c1cd wrote (tests/data/generated-db/tp2pp2_module_statistic__db;
//   tests/data/SOURCES.md), the same bytes under mpirun -np 1, 2 and 4.
// - The text export writes ModuleStatistic/module_statistic_{rank}.xlsx for every rank: valid ZIP
//   archives (`unzip -t`) that openpyxl reads as msprof-analyze 8399c1cd's workbooks for the same
//   job, cell by cell (values, types, styles, merged ranges, widths; compare_xlsx.py in
//   tests/data/generated-db/tp2pp2_module_statistic__text), the same bytes under mpirun -np 1, 2
//   and 4. A job without module ranges gets no table.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "msprof_analyze/recipes/module_statistic/module_tree.h"
#include "recipes/rank_copy_test_util.h"
#include "recipes/recipe_cli_test_util.h"
#include "recipes/recipe_test_util.h"
#include "recipes/workbook_test_util.h"
#include "support/missing_tool.h"

namespace fs = std::filesystem;
using cs::recipes::module_statistic::backward_modules;
using cs::recipes::module_statistic::FwdBwdLink;
using cs::recipes::module_statistic::KernelRow;
using cs::recipes::module_statistic::module_statistic;
using cs::recipes::module_statistic::ModuleRange;
using cs::recipes::module_statistic::ModuleStat;

namespace {

std::string rows_text(const std::vector<ModuleStat>& rows) {
  std::string s;
  for (const auto& r : rows)
    s += r.parent + "|" + r.module + "|" + r.op + "|" + r.kernels + "|" +
         std::to_string(static_cast<int64_t>(r.total_ns)) + "|" +
         std::to_string(static_cast<int64_t>(r.avg_ns)) + "|" + std::to_string(r.count) + "\n";
  return s;
}

std::string rows_text(const std::vector<ModuleRange>& mods) {
  std::string s;
  for (const auto& m : mods)
    s += m.name + "[" + std::to_string(m.start) + "," + std::to_string(m.end) + "]" +
         (m.backward ? "b " : "f ");
  return s;
}

TEST(ModuleStatistic, TreeByHand) {
  // A [0,100] holds B [10,40] (ops x, y) and B [50,80] (ops x, z) and op w directly; op v is
  // outside every module.
  const std::vector<ModuleRange> mods = {
      {0, 100, "A", false}, {10, 40, "B", false}, {50, 80, "B", false}};
  const std::vector<KernelRow> k = {{"k1", 100, 110, "x", 12, 20},  {"k2", 110, 115, "y", 22, 30},
                                    {"k3", 115, 120, "y", 22, 30},  {"k1", 200, 210, "x", 52, 60},
                                    {"k4", 210, 230, "z", 62, 70},  {"k5", 230, 233, "w", 85, 90},
                                    {"k6", 240, 250, "v", 200, 210}};
  // Both B run x first: the rows of the two instances are consecutive with different op
  // sequences (x/y and x/z), so they are told apart as B_0 and B_1 (by order of first
  // appearance). A's own op w starts last.
  EXPECT_EQ(rows_text(module_statistic(mods, k)),
            "A|B_0|x|k1|10|10|1\n"
            "A|B_0|y|k2, k3|10|10|1\n"
            "A|B_1|x|k1|10|10|1\n"
            "A|B_1|z|k4|20|20|1\n"
            "|A|w|k5|3|3|1\n");
  // The same op sequence twice: one group of two.
  const std::vector<ModuleRange> twice = {
      {0, 100, "A", false}, {10, 40, "B", false}, {50, 80, "B", false}};
  const std::vector<KernelRow> same = {{"k1", 100, 110, "x", 12, 20},
                                       {"k1", 200, 230, "x", 52, 60}};
  EXPECT_EQ(rows_text(module_statistic(twice, same)), "A|B|x|k1|40|20|2\n");
  EXPECT_TRUE(module_statistic({}, k).empty());
}

TEST(ModuleStatistic, BackwardModulesByHand) {
  const std::vector<ModuleRange> mods = {{0, 100, "A", false}, {10, 40, "B", false}};
  // x and y ran in B (parent A), w directly in A; their backward ops run later in reverse.
  const std::vector<FwdBwdLink> links = {
      {"x", 12, 20, 300, 310}, {"y", 22, 30, 290, 295}, {"w", 85, 90, 280, 285}};
  const auto bwd = backward_modules(mods, links);
  // In backward time order: w (A, no parent), then y and x (B under A): the parent module A
  // widened by 1 ns, then A's and B's own spans.
  EXPECT_EQ(rows_text(bwd), "A[289,311]b A[280,285]b B[290,310]b ");
  std::vector<ModuleRange> all = mods;
  all.insert(all.end(), bwd.begin(), bwd.end());
  const std::vector<KernelRow> k = {{"kx", 500, 510, "x", 12, 20},
                                    {"kb", 600, 605, "wb", 280, 285},
                                    {"kc", 610, 630, "yb", 290, 295}};
  EXPECT_EQ(rows_text(module_statistic(all, k)),
            "A|B|x|kx|10|10|1\n"
            "|[Backward]A|wb|kb|5|5|1\n"
            "A|[Backward]B|yb|kc|20|20|1\n");
  EXPECT_TRUE(backward_modules(mods, {}).empty());
}

const fs::path& module_statistic_scratch() {
  static const cs::test::ScratchDir dir("module-statistic");
  return dir.path();
}

fs::path generate_module_statistic_job(const std::string& name, const std::string& args) {
  return cs::test::generate_job(module_statistic_scratch() / name,
                                "--ranks 4 --tp 2 --pp 2 --steps 2 --export-type db " + args);
}

const fs::path& module_statistic_job() {
  static const fs::path j = generate_module_statistic_job("tp2pp2", "--mstx-modules");
  return j;
}

fs::path run_module_statistic(const fs::path& input, const std::string& launcher,
                              const std::string& name, const std::string& type,
                              int expected_rc = 0) {
  return cs::test::run_recipe(input, module_statistic_scratch() / name, "module_statistic", type,
                              launcher, expected_rc);
}

TEST(ModuleStatistic, MatchesMsprofAnalyzeAtAnyProcessCount) {
  const fs::path single = run_module_statistic(module_statistic_job(), "", "nolauncher", "db");
  cs::test::expect_same_outputs(
      single, fs::path(CS_TEST_DATA) / "generated-db" / "tp2pp2_module_statistic__db");
  cs::test::expect_same_at_process_counts(single, "", [](const auto& launcher, const auto& name) {
    return run_module_statistic(module_statistic_job(), launcher, name, "db");
  });
}

TEST(ModuleStatistic, TextWorkbooksReadAsMsprofAnalyzes) {
  if (cs::test::run_command("/usr/bin/python3 -c 'import openpyxl'", "/dev/null") != 0)
    CS_MISSING_TOOL("python3-openpyxl");
  if (cs::test::run_command("unzip -v", "/dev/null") != 0) CS_MISSING_TOOL("unzip");
  const fs::path text = run_module_statistic(module_statistic_job(), "", "text", "text");
  cs::test::expect_same_workbooks(
      text, fs::path(CS_TEST_DATA) / "generated-db" / "tp2pp2_module_statistic__text",
      (module_statistic_scratch() / "xlsx").string());
  cs::test::expect_same_at_process_counts(
      text, "text-", [](const auto& launcher, const auto& name) {
        return run_module_statistic(module_statistic_job(), launcher, name, "text");
      });
}

// The three per-rank queries are answered from the pages on the generated module_statistic_job
// (module_scan.h): every rank by scan, and the same bytes as with the scans off
// (CS_RECIPE_SCANS=off: every query by SQLite), including a rank whose op times are partly not
// numbers and whose links repeat.
TEST(ModuleStatistic, ScansGiveTheSqlOutputs) {
  const fs::path j = module_statistic_scratch() / "scans";
  fs::copy(module_statistic_job(), j, fs::copy_options::recursive);
  cs::test::exec_sql(cs::test::rank_db(j, 2),
                     "UPDATE PYTORCH_API SET startNs = 'soon' WHERE rowid % 7 = 0;"
                     "UPDATE PYTORCH_API SET endNs = NULL WHERE rowid % 11 = 0;"
                     "INSERT INTO CONNECTION_IDS SELECT id + 1, NULL FROM CONNECTION_IDS LIMIT 3;");
  cs::test::expect_scan_matches_sql(j, module_statistic_scratch() / "scans", "module_statistic",
                                    "db",
                                    {{"module_statistic.modules", 4},
                                     {"module_statistic.kernels", 8},
                                     {"module_statistic.links", 4}});
  // The damage changes the table: the comparison above covers the rows it affects.
  EXPECT_NE(
      cs::test::dump_sqlite(module_statistic_scratch() / "scans-on" / "cluster_analysis_output" /
                            "cluster_analysis.db"),
      cs::test::dump_sqlite(run_module_statistic(module_statistic_job(), "", "scans-plain", "db") /
                            "cluster_analysis.db"));
}

TEST(ModuleStatistic, NoModulesNoTable) {
  // No module ranges: no rank has the data, said with the hint, nothing written.
  const fs::path plain =
      run_module_statistic(generate_module_statistic_job("plain", ""), "", "plain-out", "db", 1);
  EXPECT_EQ(cs::test::written_files(plain), "");
  EXPECT_NE(
      cs::test::read_file(module_statistic_scratch() / "plain-out.log").find("--mstx-modules"),
      std::string::npos);
}

}  // namespace
