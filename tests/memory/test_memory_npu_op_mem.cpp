// CANN msprof's NPU_OP_MEM (msprof_{timestamp}.db) on a fixture built from the producer's
// documented schema (no real sample here): STRING_IDS GE / allocate / release / MatMul / Add,
// five events in bytes and ns. By hand:
//   GE series (every row's totals): allocated 0, 2048, 6144, 4096, 5120 -> peak 6144 at t 1100,
//   reserved 8192 then, 16384 at most;
//   blocks: the release at t 900 of address 500 has no allocation (before the capture): left out;
//   MatMul@100 2048 B 1000..1200 and Add@200 4096 B from 1100 (never released) are live at the
//   peak: 6144 B; MatMul@300 1024 B from 1300 never released; 3 blocks, 2 never released (5120 B);
//   the last allocation at or before the peak is Add's; NPU_INFO Ascend910B3: 64 GB.
#include <gtest/gtest.h>

#include <string>

#include "db/database.h"
#include "memory/memory_db.h"

namespace {

TEST(MemoryNpuOpMem, FiguresByHand) {
  cs::io::Diagnostics diag;
  auto db = cs::db::Database::open(
      std::string(CS_TEST_DATA) + "/memory/msprof_db/msprof_20250101000000.db", diag);
  ASSERT_TRUE(db.has_value());
  auto m = cs::memory::read_memory_db(*db, {}, diag);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(diag.error_count() + diag.warning_count(), 0u);
  EXPECT_EQ(m->series, "GE");
  EXPECT_EQ(m->peak_allocated, 6144);
  EXPECT_EQ(m->peak_time_ns, 1100);
  EXPECT_EQ(m->reserved_at_peak, 8192);
  EXPECT_EQ(m->peak_reserved, 16384);
  EXPECT_EQ(m->blocks, 3);
  EXPECT_EQ(m->never_released, 2);
  EXPECT_EQ(m->never_released_bytes, 5120);
  EXPECT_EQ(m->live_bytes_at_peak, 6144);
  EXPECT_EQ(m->peak_operator, "Add");
  EXPECT_EQ(m->capacity, cs::memory::chip_capacity("Ascend910B3"));
  EXPECT_EQ(m->capacity, int64_t{64} << 30);
}

}  // namespace
