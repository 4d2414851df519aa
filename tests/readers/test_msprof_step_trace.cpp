// The step trace of a CANN msprof PROF_ text directory from its msprof_*.json timeline
// (readers/msprof_step_trace.h, as msprof-analyze's MsprofStepTraceTimeAdapter computes it).
#include "readers/msprof_step_trace.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/test_files.h"

namespace cs::io {
namespace {

using test::all_diags;

TEST(MsprofStepTrace, SumsTheOverlapEventsAndReceivesAsBubble) {
  // msprof-analyze's own unit test case, plus events the adapter does not count.
  const std::string a = R"J([
{"name": "Communication", "dur": "30"}, {"name": "Communication", "dur": "20"},
{"name": "Computing", "dur": 100}, {"name": "Free", "dur": "50"},
{"name": "Communication(Not Overlapped)", "dur": 15.0},
{"name": "hcom_receive_287", "dur": "5"},
{"name": "hcom_allReduce_1", "dur": 99}, {"name": "process_name", "ph": "M"}, 7])J";
  readers::StepTraceFile st;
  Diagnostics d;
  ASSERT_TRUE(readers::parse_msprof_step_trace({a}, {"msprof_20240101000000.json"}, st, d))
      << all_diags(d);
  EXPECT_EQ(st.columns, (std::vector<std::string>{
                            "Computing", "Communication(Not Overlapped)", "Overlapped",
                            "Communication", "Free", "Stage", "Bubble",
                            "Communication(Not Overlapped and Exclude Receive)", "Preparing"}));
  ASSERT_EQ(st.rows.size(), 1u);
  EXPECT_EQ(st.rows[0].step, "");
  EXPECT_EQ(st.rows[0].values,
            (std::vector<double>{100.0, 15.0, 35.0, 50.0, 50.0, 160.0, 5.0, 10.0, 0.0}));
  EXPECT_EQ(d.warning_count(), 0u) << all_diags(d);
}

TEST(MsprofStepTrace, SlicesAreSummedInOrderAndBadDurationsCountAsZero) {
  const std::string a = R"J([{"name": "Computing", "dur": 0.1}, {"name": "Free", "dur": "x"}])J";
  const std::string b = R"J([{"name": "Computing", "dur": 0.2}, {"name": "Free"}])J";
  readers::StepTraceFile st;
  Diagnostics d;
  ASSERT_TRUE(readers::parse_msprof_step_trace({a, b}, {"s0.json", "s1.json"}, st, d))
      << all_diags(d);
  ASSERT_EQ(st.rows.size(), 1u);
  EXPECT_EQ(st.rows[0].values[0], 0.1 + 0.2);  // Python's float sum, file order
  EXPECT_EQ(st.rows[0].values[4], 0.0);
  ASSERT_EQ(d.warning_count(), 1u) << all_diags(d);
  EXPECT_NE(all_diags(d).find("(first: a string)"), std::string::npos) << all_diags(d);
}

TEST(MsprofStepTrace, NotAnArrayIsAnError) {
  readers::StepTraceFile st;
  Diagnostics d;
  EXPECT_FALSE(
      readers::parse_msprof_step_trace({R"J({"traceEvents": []})J"}, {"msprof_1.json"}, st, d));
  EXPECT_NE(all_diags(d).find("not a JSON array"), std::string::npos) << all_diags(d);
}

TEST(MsprofStepTrace, TimelineFilesNewestTimestampElseNewestSlices) {
  EXPECT_EQ(
      readers::msprof_timeline_files({"msprof_20240101000000.json", "msprof_20240102000000.json",
                                      "msprof_slice_0_20250101000000.json", "msprof_2024.json",
                                      "op_summary_20240101000000.csv"}),
      (std::vector<std::string>{"msprof_20240102000000.json"}));
  EXPECT_EQ(readers::msprof_timeline_files(
                {"msprof_slice_1_20240102000000.json", "msprof_slice_0_20240102000000.json",
                 "msprof_slice_0_20240101000000.json", "msprof_slice_12_20240103000000.json"}),
            (std::vector<std::string>{"msprof_slice_0_20240102000000.json",
                                      "msprof_slice_1_20240102000000.json"}));
  EXPECT_TRUE(
      readers::msprof_timeline_files({"trace_view.json", "msprof_20240101000000.db"}).empty());
}

}  // namespace
}  // namespace cs::io
