// io::print_message / io::print_diagnostics: the one printer of the commands' messages.
#include "io/diagnostics_print.h"

#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace cs::io
