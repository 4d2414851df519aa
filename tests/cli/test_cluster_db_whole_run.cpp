// Golden test: ClusterStepTraceTime of `cluster -m all` on MindSpore's and CANN msprof's DB
// layouts is msprof-analyze's: one whole-run row per rank (step NULL) from the profiler
// database's intervals, not analysis.db's per-step rows (docs/msprof-compat.md). The job is
// `generate --ranks 8 --tp 4 --pp 2 --steps 2 --export-type db` copied into both layouts (as
// tests/data/golden/msprof_db_step/make_layouts.py does); the expected tables are msprof-analyze
// 8399c1cd's, dumped by dump_table.py (tests/data/SOURCES.md). The msprof copy has no
// profiler_metadata.json (DP/PP/TP written as 0), the MindSpore copy has one (indexes, NA on the
// stage rows); several ranks have receive ops heading merged communication intervals (bubble's
// in-place quirk). With no launcher and under mpirun at 1, 2 and 4 processes.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "support/test_files.h"

namespace fs = std::filesystem;
using cs::test::mpirun;
using cs::test::read_file;
using cs::test::run_command;

namespace {

const fs::path kStepGolden = fs::path(CS_SOURCE_DIR) / "tests/data/golden/msprof_db_step";

const fs::path& whole_run_scratch() {
  static const cs::test::ScratchDir d("cluster-db-whole-run");
  return d.path();
}

struct LayoutJobs {
  fs::path ms, prof;
  std::string error;
};

// The generated job in MindSpore's and msprof's DB layouts (make_layouts.py in C++).
const LayoutJobs& layout_jobs() {
  static const LayoutJobs j = [] {
    LayoutJobs out{whole_run_scratch() / "ms", whole_run_scratch() / "prof", {}};
    const fs::path pt = whole_run_scratch() / "pt";
    if (run_command(std::string(CS_BINARY) + " generate " + pt.string() +
                        " --ranks 8 --tp 4 --pp 2 --steps 2 --export-type db",
                    (whole_run_scratch() / "generate.log").string()) != 0) {
      out.error = read_file(whole_run_scratch() / "generate.log");
      return out;
    }
    fs::create_directories(out.ms);
    for (const auto& d : fs::directory_iterator(pt)) {
      if (!d.is_directory()) continue;
      std::string name = d.path().filename().string();
      name.replace(name.size() - 3, 3, "_ms");
      fs::copy(d.path(), out.ms / name, fs::copy_options::recursive);
      const fs::path o = out.ms / name / "ASCEND_PROFILER_OUTPUT";
      fs::rename(o / "analysis.db", o / "communication_analyzer.db");
      std::string rank;
      for (const auto& f : fs::directory_iterator(o)) {
        const std::string n = f.path().filename().string();
        if (!n.starts_with("ascend_pytorch_profiler_")) continue;
        rank = n.substr(24, n.size() - 27);
        fs::rename(f.path(), o / ("ascend_mindspore_profiler_" + n.substr(24)));
      }
      const fs::path p = out.prof / ("PROF_00000" + rank + "_2024010100000000" + rank + "_ABCDEF");
      fs::create_directories(p / "analyze");
      fs::copy_file(o / "communication_analyzer.db", p / "analyze/communication_analyzer.db");
      fs::copy_file(o / ("ascend_mindspore_profiler_" + rank + ".db"),
                    p / "msprof_20240101000000.db");
      cs::test::write_file(p / ("device_" + rank) / ("info.json." + rank),
                           "{\"hostUid\": \"17\", \"rank_id\": " + rank + "}");
    }
    return out;
  }();
  return j;
}

// The table as dump_table.py prints it: the CREATE statement, then one line per row (rowid
// order), cells "int:N", "real:%.17g", "null" or "text:S" separated by tabs.
std::vector<std::string> dump_table(const fs::path& db_path, const std::string& table) {
  std::vector<std::string> lines;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return lines;
  }
  sqlite3_stmt* st = nullptr;
  const std::string master =
      "SELECT sql FROM sqlite_master WHERE type='table' AND name='" + table + "'";
  sqlite3_prepare_v2(db, master.c_str(), -1, &st, nullptr);
  if (sqlite3_step(st) == SQLITE_ROW)
    lines.push_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
  sqlite3_finalize(st);
  const std::string q = "SELECT * FROM \"" + table + "\" ORDER BY rowid";
  sqlite3_prepare_v2(db, q.c_str(), -1, &st, nullptr);
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    std::string line;
    for (int i = 0; i < sqlite3_column_count(st); ++i) {
      if (i) line += '\t';
      char buf[64];
      switch (sqlite3_column_type(st, i)) {
        case SQLITE_INTEGER:
          line += "int:" + std::to_string(sqlite3_column_int64(st, i));
          break;
        case SQLITE_FLOAT:
          std::snprintf(buf, sizeof buf, "real:%.17g", sqlite3_column_double(st, i));
          line += buf;
          break;
        case SQLITE_NULL:
          line += "null";
          break;
        default:
          line += std::string("text:") + reinterpret_cast<const char*>(sqlite3_column_text(st, i));
      }
    }
    lines.push_back(line);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return lines;
}

std::vector<std::string> golden(const std::string& layout) {
  std::vector<std::string> lines;
  std::istringstream in(read_file(kStepGolden / (layout + "_ClusterStepTraceTime.tsv")));
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

// `cluster -m all` on the layout's job (launcher "" for none); the table, or empty on failure.
std::vector<std::string> run_all_step_trace(const fs::path& job, const std::string& launcher,
                                            const std::string& name) {
  const fs::path out = whole_run_scratch() / name;
  const int rc = run_command(
      launcher + CS_BINARY + " cluster -q -m all -d " + job.string() + " -o " + out.string(),
      out.string() + ".log");
  EXPECT_EQ(rc, 0) << read_file(out.string() + ".log");
  return dump_table(out / "cluster_analysis_output/cluster_analysis.db", "ClusterStepTraceTime");
}

// msprof-analyze lists rank directories in file-system order; the msprof reference was made with
// them in name order (= rank order, run_msprof_analyze.py), so it is compared row for row. The
// MindSpore directories' names do not sort by rank: compared as a set of rows.
void expect_step_trace_golden(const std::string& layout, const std::string& launcher,
                              const std::string& how) {
  const LayoutJobs& j = layout_jobs();
  ASSERT_TRUE(j.error.empty()) << j.error;
  auto want = golden(layout);
  ASSERT_GT(want.size(), 8u) << layout;  // the CREATE statement, 8 rank rows, the stage rows
  auto got = run_all_step_trace(layout == "ms" ? j.ms : j.prof, launcher, layout + "-" + how);
  if (layout == "ms") {
    std::sort(want.begin() + 1, want.end());
    if (!got.empty()) std::sort(got.begin() + 1, got.end());
  }
  ASSERT_EQ(got.size(), want.size()) << layout << " (" << how << ")";
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(got[i], want[i]) << layout << " (" << how << ") line " << i;
}

class ClusterDbWholeRun : public ::testing::TestWithParam<const char*> {};

TEST_P(ClusterDbWholeRun, StepTraceEqualsMsprofAnalyzeWithAndWithoutLauncher) {
  expect_step_trace_golden(GetParam(), "", "nolauncher");
  for (int np : {1, 2, 4})
    expect_step_trace_golden(GetParam(), mpirun(np), "np" + std::to_string(np));
}

INSTANTIATE_TEST_SUITE_P(Layouts, ClusterDbWholeRun, ::testing::Values("ms", "prof"));

}  // namespace
