// `top` on NPU trace_view.json: device time and calls agree with the kernel_details.csv the
// producer wrote beside it; tasks are typed by what they are (waits, DMA and a collective's
// device tasks are no kernels; hcom ops count once).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "top/top_profile.h"

namespace cs::report {
namespace {

const std::string kOut = std::string(CS_TEST_DATA) + "/ascend-real/text_level1/";

double total_us(const std::vector<top::OpCall>& calls) {
  double s = 0;
  for (const auto& c : calls) s += c.dur_us;
  return s;
}

// kernel_details.csv (the producer's table) of each rank, python3:
//   rows = list(csv.DictReader(open(f))); len(rows), sum(float(r['Duration(us)']) for r in rows)
//   rank0 -> 191, 114865.613; rank1 -> 191, 109254.4 (4 of them hcom_allReduce_)
TEST(TopTraceView, DeviceTimeAgreesWithKernelDetails) {
  for (int rank : {0, 1}) {
    const std::string dir =
        kOut + "rank" + std::to_string(rank) + "_ascend_pt/ASCEND_PROFILER_OUTPUT/";
    std::vector<top::OpCall> from_trace, from_csv;
    std::string used;
    io::Diagnostics diag;
    ASSERT_TRUE(top::load_op_calls(dir + "trace_view.json.gz", from_trace, used, diag));
    ASSERT_TRUE(top::load_op_calls(dir + "kernel_details.csv", from_csv, used, diag));
    ASSERT_EQ(from_csv.size(), 191u);
    EXPECT_EQ(from_trace.size(), from_csv.size()) << rank;
    EXPECT_NEAR(total_us(from_trace), total_us(from_csv), 0.001 * total_us(from_csv)) << rank;
    std::map<std::string, int> types;
    for (const auto& c : from_trace) {
      ++types[c.type];
      EXPECT_TRUE(c.name != "Notify Wait" && c.name != "EVENT_WAIT" && c.name != "SDMA" &&
                  c.name != "MEMCPY_ASYNC")
          << c.name;
    }
    EXPECT_EQ(types["hcom_allReduce_"], 4) << rank;
    EXPECT_EQ(types["kernel"], 0) << rank;  // every task has a launching op or a task type
    // Conv2D tasks get their op's type and shapes through the async_npu flows.
    EXPECT_GT(types["Conv2D"], 0) << rank;
  }
  EXPECT_NEAR(total_us([] {
                std::vector<top::OpCall> c;
                std::string u;
                io::Diagnostics d;
                top::load_op_calls(
                    kOut + "rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json.gz", c, u, d);
                return c;
              }()),
              114865.613, 1.0);
}

}  // namespace
}  // namespace cs::report
