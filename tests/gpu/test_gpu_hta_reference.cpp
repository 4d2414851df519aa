// The step breakdown against HTA (facebookresearch/HolisticTraceAnalysis, run on Debian's python3
// with pandas 1.5.3 on ../shared/samples/kineto; its code is not part of this repository).
// HTA's get_temporal_breakdown() covers each rank's first ProfilerStep (#551 here):
//   rank  idle_time(us)  compute_time(us)  non_compute_time(us)  kernel_time(us)
//   0     321378.0       106252.0          172428.0              600058.0
//   1     328671.0       135548.0          136455.0              600674.0
// and get_comm_comp_overlap(): comp_comm_overlap_pctg 11.81 (rank 0), 20.05 (rank 1).
// HTA's idle = our free, compute = our computing, non_compute = communication not overlapped +
// memory, kernel_time = the step's window, overlap % = overlapped / communication x 100.
// Tolerance: HTA prints whole microseconds (the traces' resolution: exact to 0.5 us) and
// percentages to 2 decimals (0.005).

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gpu/gpu_rank.h"
#include "readers/kineto_trace.h"
#include "support/test_files.h"

namespace {

struct HtaRow {
  int rank;
  double idle_us, compute_us, non_compute_us, kernel_us, overlap_pct;
};

const HtaRow kHta[] = {
    {0, 321378.0, 106252.0, 172428.0, 600058.0, 11.81},
    {1, 328671.0, 135548.0, 136455.0, 600674.0, 20.05},
};

TEST(GpuHtaReference, TemporalBreakdownAndOverlap) {
  for (const HtaRow& h : kHta) {
    SCOPED_TRACE(h.rank);
    const std::string path =
        std::string(CS_TEST_DATA) + "/kineto/sampled_rank-" + std::to_string(h.rank) + ".json.gz";
    cs::readers::Trace t;
    cs::io::Diagnostics diag;
    ASSERT_TRUE(cs::readers::read_kineto_trace(path, t, diag)) << cs::test::all_diags(diag);
    const auto s = cs::gpu::summarize_gpu_trace(t, t.distributed.rank);
    ASSERT_FALSE(s.steps.empty());
    const auto& st = s.steps.front();
    ASSERT_EQ(st.step, "551");
    EXPECT_NEAR(st.free_ns / 1e3, h.idle_us, 0.5);
    EXPECT_NEAR(st.computing_ns / 1e3, h.compute_us, 0.5);
    EXPECT_NEAR((st.comm_not_overlapped_ns + st.memory_ns) / 1e3, h.non_compute_us, 0.5);
    EXPECT_NEAR(st.window_ns / 1e3, h.kernel_us, 0.5);
    EXPECT_NEAR(100.0 * static_cast<double>(st.overlapped_ns) / st.communication_ns, h.overlap_pct,
                0.005);
  }
}

}  // namespace
