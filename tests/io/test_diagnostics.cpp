// io::print_message / io::print_diagnostics(_grouped): the one printer of the commands' messages.
#include "io/diagnostics_print.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cs::io {
namespace {

TEST(PrintDiagnostics, OneLineEachWithThePrefix) {
  Diagnostics diag;
  diag.error("a.json", 3, "truncated", "re-export it");
  diag.warn("b.csv", 0, "empty column", "nothing to do");
  testing::internal::CaptureStderr();
  print_diagnostics(diag);
  const std::string out = testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "clusterscope: " + diag.items()[0].to_string() +
                     "\nclusterscope: " + diag.items()[1].to_string() + "\n");
}

TEST(PrintDiagnostics, QuietLeavesOnlyErrors) {
  Diagnostics diag;
  diag.warn("b.csv", 0, "empty column", "nothing to do");
  diag.error("a.json", 3, "truncated", "re-export it");
  testing::internal::CaptureStderr();
  print_diagnostics(diag, /*quiet=*/true);
  const std::string out = testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "clusterscope: " + diag.items()[1].to_string() + "\n");
}

TEST(PrintDiagnostics, SaysHowManyWereKeptBack) {
  Diagnostics diag;
  diag.set_limit_per_file(1);
  for (int i = 0; i < 3; ++i) diag.warn("c.csv", i + 1, "bad row", "fix the row");
  ASSERT_EQ(diag.suppressed(), 2u);
  testing::internal::CaptureStderr();
  print_diagnostics(diag);
  const std::string out = testing::internal::GetCapturedStderr();
  EXPECT_NE(out.find("clusterscope: 2 more problems not shown\n"), std::string::npos) << out;
  testing::internal::CaptureStderr();
  print_diagnostics(diag, /*quiet=*/true);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(PrintMessage, PrefixAndNewline) {
  testing::internal::CaptureStderr();
  print_message("x: y \u2014 z");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "clusterscope: x: y \u2014 z\n");
}

TEST(PrintDiagnosticsGrouped, OneMessagePerProblem) {
  Diagnostics diag;
  for (int r = 0; r < 6; ++r)
    diag.warn("r" + std::to_string(r) + ".db", 0, "no table MSTX_EVENTS", "rank skipped");
  diag.warn("r2.db", 0, "no table STEP_TIME", "steps are 0");
  diag.error("r3.db", 0, "not a database", "re-export it");
  diag.error("r4.db", 0, "not a database", "re-export it");
  testing::internal::CaptureStderr();
  print_diagnostics_grouped(diag);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "clusterscope: r0.db: no table MSTX_EVENTS (and 5 more files: r1.db, r2.db, r3.db, "
            "...) \u2014 rank skipped\n"
            "clusterscope: r2.db: no table STEP_TIME \u2014 steps are 0\n"
            "clusterscope: r3.db: not a database (and 1 more file: r4.db) \u2014 re-export it\n");
  testing::internal::CaptureStderr();
  print_diagnostics_grouped(diag, /*quiet=*/true);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "clusterscope: r3.db: not a database (and 1 more file: r4.db) \u2014 re-export it\n");
}

// The analyses' notes: one problem of many groups is one line naming three of them; the same
// note twice is "(2 times)"; notes that read differently stay apart, in first-seen order.
TEST(NoteLines, OneProblemOfManySubjectsIsOneLine) {
  Diagnostics notes;
  const std::string rest = "local rank(s) 0, 1 cannot be mapped";
  for (const char* g : {"11", "22", "33", "44", "22"})
    notes.warn("", 0, std::string("communication group ") + g + ": " + rest, "left out");
  notes.warn("", 0, "communication group 55: local rank(s) 3 cannot be mapped", "left out");
  notes.warn("", 0, "no colon here", "h");
  notes.warn("", 0, "no colon here", "h");
  notes.warn("", 0, "rank 7: slow", "look");
  const std::vector<std::string> lines = note_lines(notes);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0],
            "communication groups 11, 22, 33 and 1 more (4 in all): local rank(s) 0, 1 cannot be "
            "mapped \u2014 left out");
  EXPECT_EQ(lines[1], "communication group 55: local rank(s) 3 cannot be mapped \u2014 left out");
  EXPECT_EQ(lines[2], "no colon here \u2014 h (2 times)");
  EXPECT_EQ(lines[3], "rank 7: slow \u2014 look");
}

}  // namespace
}  // namespace cs::io

TEST(Diagnostics, EmptyUntilUsedCopiesDeepAndAppendsCounts) {
  cs::io::Diagnostics empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_TRUE(empty.items().empty());
  EXPECT_EQ(empty.error_count() + empty.warning_count() + empty.suppressed(), 0u);
  cs::io::Diagnostics d;
  d.set_limit_per_file(1);
  d.error("a.csv", 3, "bad row");
  d.warn("a.csv", 4, "bad row");  // over the limit: counted, not kept
  cs::io::Diagnostics copy = d;
  d.warn("b.csv", 1, "other");
  EXPECT_EQ(copy.items().size(), 1u);  // the copy is its own
  EXPECT_EQ(copy.warning_count(), 1u);
  EXPECT_EQ(copy.suppressed(), 1u);
  cs::io::Diagnostics sum;
  sum.append(empty);
  EXPECT_TRUE(sum.empty());
  sum.append(copy);
  EXPECT_EQ(sum.items().size(), 1u);
  EXPECT_EQ(sum.error_count(), 1u);
  EXPECT_EQ(sum.warning_count(), 1u);
  EXPECT_EQ(sum.suppressed(), 1u);
}
