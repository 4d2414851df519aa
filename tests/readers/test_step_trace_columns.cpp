// StepTraceColumns: every rank's step_trace_time.csv has the same header, so equal column lists
// are one list shared by every file that has it; a change copies first, so no other file sees it.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "readers/step_trace.h"

namespace cs::readers {
namespace {

const char kFile[] =
    "Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,"
    "Bubble,Communication(Not Overlapped and Exclude Receive),Preparing\n"
    "0,1,10,2,3,5,1,100,0,2,0\n"
    "0,2,11,2,3,5,1,100,0,2,0\n";

TEST(StepTraceColumns, EqualHeadersShareOneList) {
  io::Diagnostics diag;
  StepTraceFile a, b;
  ASSERT_TRUE(parse_step_trace_csv(kFile, "rank0/step_trace_time.csv", a, diag));
  ASSERT_TRUE(parse_step_trace_csv(kFile, "rank1/step_trace_time.csv", b, diag));
  ASSERT_EQ(a.columns.size(), 9u);
  EXPECT_EQ(a.columns, b.columns);
  EXPECT_EQ(&a.columns.names(), &b.columns.names());  // one list, not two copies
  // A list built name by name, or assigned, is the same shared list.
  StepTraceColumns c;
  for (std::string_view n : kStepTraceColumns) c.emplace_back(n);
  EXPECT_EQ(&c.names(), &a.columns.names());
  StepTraceColumns d = std::vector<std::string>(kStepTraceColumns.begin(), kStepTraceColumns.end());
  EXPECT_EQ(&d.names(), &a.columns.names());
  EXPECT_EQ(a.column("Bubble"), 6);
  EXPECT_DOUBLE_EQ(a.get(a.rows[1], "Computing"), 11);
}

TEST(StepTraceColumns, AChangeCopiesFirst) {
  StepTraceColumns a = {"Computing", "Free"};
  StepTraceColumns b = {"Computing", "Free"};
  ASSERT_EQ(&a.names(), &b.names());
  b.emplace_back("Stage");
  EXPECT_EQ(a, (std::vector<std::string>{"Computing", "Free"}));
  EXPECT_EQ(b, (std::vector<std::string>{"Computing", "Free", "Stage"}));
  EXPECT_FALSE(a == b);
  b.clear();
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(a.size(), 2u);
  StepTraceColumns none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none, std::vector<std::string>{});
  const std::vector<std::string>& as_vector = a;  // reads as a vector where one is taken
  EXPECT_EQ(as_vector.back(), "Free");
}

}  // namespace
}  // namespace cs::readers
