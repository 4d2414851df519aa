// The host side of a Kineto trace (tests/data/kineto-variants/pretty_h100_falconsai.json.gz, a
// real H100 trace of one step): every kernel and memset is launched by a cuda_runtime or
// cuda_driver call inside a cpu_op, Free is the step's gaps in the device's busy time.

#include <gtest/gtest.h>

#include <string>

#include "host/rank_host.h"
#include "support/test_files.h"

namespace cs::host {
namespace {

// Worked out from the trace with a short script (json + gzip): 156 device events (154 kernels,
// 2 memsets), all linked by "correlation" to a runtime or driver call inside a cpu_op, 1225.31 µs
// in all; aten::addmm (73 calls) launched 735.037 µs of them. ProfilerStep#6 (user_annotation,
// 7894.065 µs) holds every device event; the gaps between the first and last of them sum to
// 6334.535 µs (the busy union is 1225.309 µs).
TEST(HostKineto, LaunchesAndFreeOfARealTrace) {
  io::Diagnostics diag;
  HostSummary s;
  ASSERT_TRUE(read_kineto_host(
      std::string(CS_TEST_DATA) + "/kineto-variants/pretty_h100_falconsai.json.gz", s, diag))
      << test::all_diags(diag);
  int64_t launches = 0;
  double device = 0;
  for (const auto& o : s.ops) {
    launches += o.launches;
    device += o.device_self_us;
    if (o.name == "aten::addmm") {
      EXPECT_EQ(o.calls, 73);
      EXPECT_NEAR(o.device_self_us, 735.037, 1e-6);
    }
  }
  EXPECT_EQ(launches, 156);
  EXPECT_NEAR(device, 1225.31, 1e-6);
  ASSERT_EQ(s.steps.size(), 1u);
  EXPECT_EQ(s.steps[0].step, 6);
  EXPECT_NEAR(s.steps[0].free_us, 6334.535, 2e-3);
  EXPECT_NEAR(s.steps[0].step_us, 7894.065, 2e-3);
  double parts = s.steps[0].unattributed_us;
  for (double c : s.steps[0].cause_us) parts += c;
  EXPECT_NEAR(parts, s.steps[0].free_us, 1e-6);
}

}  // namespace
}  // namespace cs::host
