// CANN msprof's PROF_ text layout (mindstudio_profiler_output/{memory_record,operator_memory,
// npu_module_mem}_{timestamp}.csv) on a fixture written from the producer's documentation (no
// real sample here): units KB, operator_memory with Duration(us) instead of Release Time(us), a
// release of a block allocated before the capture (negative Size, no Allocation Time). By hand:
//   series GE (APP has no allocated values): peak allocated 6144 KB at 1001.000 us, reserved
//   8192 KB then and at most; APP peak 20480 KB;
//   blocks: the -512 KB row is not a block; MatMul_1 2048 KB from 1000.5 us for 2.5 us (released
//   at 1003.0 us, after the peak) and Add_2 4096 KB at 1001.0 us never released are both live at
//   the peak: 6144 KB, matching the peak; one never released block of 4096 KB;
//   npu_module_mem: the newest file by name (…2025…, not …2024…): HCCL peak 5120 KB.
#include <gtest/gtest.h>

#include <string>

#include "memory/memory_text.h"

namespace {

const std::string kCannTextDir = std::string(CS_TEST_DATA) + "/memory/cann_text";
constexpr int64_t kKB = 1024;

TEST(MemoryCannText, FiguresByHand) {
  cs::io::Diagnostics diag;
  uint64_t files = 0;
  auto m = cs::memory::read_memory_text(kCannTextDir, {}, diag, &files);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(diag.error_count() + diag.warning_count(), 0u);
  EXPECT_EQ(files, 3u);
  EXPECT_EQ(m->series, "GE");
  EXPECT_EQ(m->peak_allocated, 6144 * kKB);
  EXPECT_EQ(m->peak_time_ns, 1001000);
  EXPECT_EQ(m->peak_reserved, 8192 * kKB);
  EXPECT_EQ(m->reserved_at_peak, 8192 * kKB);
  EXPECT_EQ(m->peak_app_reserved, 20480 * kKB);
  EXPECT_EQ(m->blocks, 2);
  EXPECT_EQ(m->live_bytes_at_peak, 6144 * kKB);
  EXPECT_EQ(m->never_released, 1);
  EXPECT_EQ(m->never_released_bytes, 4096 * kKB);
  bool hccl = false;
  for (const auto& c : m->components)
    if (c.kind == "module" && c.name == "HCCL") {
      hccl = true;
      EXPECT_EQ(c.peak_reserved, 5120 * kKB);
    }
  EXPECT_TRUE(hccl);
}

TEST(MemoryCannText, FileNames) {
  EXPECT_EQ(cs::memory::memory_file(kCannTextDir, "npu_module_mem"),
            kCannTextDir + "/npu_module_mem_20250101000000.csv");
  EXPECT_EQ(cs::memory::memory_file(kCannTextDir, "static_op_mem"),
            kCannTextDir + "/static_op_mem.csv");
}

}  // namespace
