// step_trace_time.csv reader: a realistic per-rank file (tests/data/step_trace), the older
// header without Preparing and with empty Step cells, and bad files.

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "readers/step_trace.h"
#include "support/test_data.h"
#include "support/test_files.h"

namespace cs::io {
namespace {

using cs::test::all_diags;
using cs::test::kData;

TEST(StepTrace, PerRankFile) {
  Diagnostics diag;
  readers::StepTraceFile f;
  ASSERT_TRUE(readers::read_step_trace_csv(kData + "/step_trace/step_trace_time.csv", f, diag));
  EXPECT_TRUE(diag.empty()) << all_diags(diag);
  ASSERT_EQ(f.columns.size(), 9u);
  EXPECT_EQ(f.columns.front(), "Computing");
  EXPECT_EQ(f.columns.back(), "Preparing");
  EXPECT_EQ(f.column("Bubble"), 6);
  EXPECT_EQ(f.column("Device_id"), -1);
  EXPECT_EQ(f.column("Step"), -1);
  ASSERT_EQ(f.rows.size(), 3u);
  EXPECT_EQ(f.rows[0].step, "1");
  EXPECT_EQ(f.rows[2].step, "3");
  EXPECT_DOUBLE_EQ(f.get(f.rows[0], "Computing"), 80309.687);
  EXPECT_DOUBLE_EQ(f.get(f.rows[1], "Preparing"), 998.7);
  EXPECT_DOUBLE_EQ(f.get(f.rows[2], "Bubble"), 9150.0);
  EXPECT_TRUE(std::isnan(f.get(f.rows[0], "No such column")));
  // The producer's identities hold in the file (docs/formats.md §4).
  for (const auto& r : f.rows) {
    double cno = f.get(r, "Communication(Not Overlapped)");
    EXPECT_NEAR(f.get(r, "Overlapped"), f.get(r, "Communication") - cno, 1e-3);
    EXPECT_NEAR(f.get(r, "Communication(Not Overlapped and Exclude Receive)"),
                cno - f.get(r, "Bubble"), 1e-3);
    EXPECT_NEAR(f.get(r, "Stage") + f.get(r, "Bubble"),
                f.get(r, "Computing") + cno + f.get(r, "Free"), 1e-3);
  }
}

TEST(StepTrace, OlderHeaderEmptyStepAndBadCells) {
  Diagnostics diag;
  readers::StepTraceFile f;
  const std::string path = kData + "/malformed/csv_step_trace_old_empty_step.csv";
  ASSERT_TRUE(readers::read_step_trace_csv(path, f, diag));
  ASSERT_EQ(f.columns.size(), 8u);
  EXPECT_EQ(f.column("Preparing"), -1);
  EXPECT_TRUE(std::isnan(f.get(f.rows[0], "Preparing")));
  ASSERT_EQ(f.rows.size(), 2u);
  EXPECT_EQ(f.rows[0].step, "");
  EXPECT_DOUBLE_EQ(f.get(f.rows[0], "Free"), 1366552.5200156313);
  EXPECT_EQ(f.get(f.rows[0], "Bubble"), 0.0);
  const auto& r = f.rows[1];
  EXPECT_TRUE(std::isnan(f.get(r, "Computing")));   // N/A: missing, silently
  EXPECT_TRUE(std::isnan(f.get(r, "Overlapped")));  // empty: missing, silently
  EXPECT_TRUE(std::isnan(f.get(r, "Free")));        // 1e999: warned
  EXPECT_TRUE(std::isnan(f.get(r, "Communication(Not Overlapped and Exclude Receive)")));  // NaN
  EXPECT_DOUBLE_EQ(f.get(r, "Communication(Not Overlapped)"), 265000.5);
  ASSERT_EQ(diag.items().size(), 2u) << all_diags(diag);
  for (const auto& d : diag.items()) {
    EXPECT_EQ(d.file, path);
    EXPECT_EQ(d.line, 3);
    EXPECT_EQ(d.severity, Severity::kWarning);
  }
  EXPECT_NE(diag.items()[0].what.find("\"Free\""), std::string::npos);
}

TEST(StepTrace, CrlfBomAndWrongFieldCount) {
  const std::string text =
      "\xEF\xBB\xBF"
      "Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,"
      "Bubble,Communication(Not Overlapped and Exclude Receive),Preparing\r\n"
      "0,5,100.5,20,5,25,10,130.5,0,20,3.25\r\n"
      "0,6,100.5,20\r\n"
      "0,7,\t101.5\t,21,5,26,11,133.5,0,21,3\r\n";
  Diagnostics diag;
  readers::StepTraceFile f;
  ASSERT_TRUE(readers::parse_step_trace_csv(text, "rank0/step_trace_time.csv", f, diag));
  ASSERT_EQ(f.rows.size(), 2u);
  EXPECT_EQ(f.rows[1].step, "7");
  EXPECT_EQ(f.get(f.rows[1], "Computing"), 101.5);
  EXPECT_EQ(f.get(f.rows[0], "Preparing"), 3.25);
  ASSERT_EQ(diag.items().size(), 1u);
  EXPECT_EQ(diag.items()[0].file, "rank0/step_trace_time.csv");
  EXPECT_EQ(diag.items()[0].line, 3);
  EXPECT_NE(diag.items()[0].what.find("row has 4 fields, header has 11"), std::string::npos);
}

// Finding 3 of issue 17: exact repeats of a row are dropped with one warning naming the file,
// the count and the first repeat's line; a row with the same step but other values is kept.
// A doubled BOM does not turn Device_id into a value column.
TEST(StepTrace, RepeatedRowsCollapsedOnce) {
  std::string text =
      "\xEF\xBB\xBF\xEF\xBB\xBF"
      "Device_id,Step,Computing,Free\n"
      "0,1,10,2\n"
      "0,2,11,3\n";
  for (int i = 0; i < 1000; ++i) text += "0,1,10,2\n";
  text += "0,1,10,2.5\n";
  Diagnostics diag;
  readers::StepTraceFile f;
  ASSERT_TRUE(readers::parse_step_trace_csv(text, "rank0/step_trace_time.csv", f, diag));
  EXPECT_EQ(f.columns, (std::vector<std::string>{"Computing", "Free"}));
  ASSERT_EQ(f.rows.size(), 3u);
  EXPECT_EQ(f.get(f.rows[2], "Free"), 2.5);
  ASSERT_EQ(diag.items().size(), 1u) << all_diags(diag);
  EXPECT_EQ(diag.items()[0].severity, Severity::kWarning);
  EXPECT_EQ(diag.items()[0].file, "rank0/step_trace_time.csv");
  EXPECT_EQ(diag.items()[0].line, 4);
  EXPECT_NE(diag.items()[0].what.find("1000 row(s) repeat an earlier row"), std::string::npos);
}

TEST(StepTrace, UnusableFiles) {
  for (const char* name : {"csv_empty.csv", "csv_binary.csv", "csv_blank_lines.csv"}) {
    Diagnostics diag;
    readers::StepTraceFile f;
    EXPECT_FALSE(readers::read_step_trace_csv(kData + "/malformed/" + name, f, diag)) << name;
    ASSERT_EQ(diag.error_count(), 1u) << all_diags(diag);
    EXPECT_EQ(diag.items()[0].file, kData + "/malformed/" + name);
  }
  Diagnostics diag;
  readers::StepTraceFile f;
  EXPECT_FALSE(readers::parse_step_trace_csv("Device_id,Step\n0,1\n", "x.csv", f, diag));
  EXPECT_EQ(diag.error_count(), 1u);
  // Not a step trace at all (a text file linked in its place): rejected by its header.
  Diagnostics d2;
  EXPECT_FALSE(readers::parse_step_trace_csv("root:x:0:0:root:/root:/bin/bash\n", "x.csv", f, d2));
  ASSERT_EQ(d2.error_count(), 1u);
  EXPECT_EQ(d2.items()[0].what.find("root"), std::string::npos);
}

}  // namespace
}  // namespace cs::io
