// Graph mode's static_op_mem.csv on a fixture written from the producer's documentation (no real
// sample exists here). Figures worked out by hand:
//   graph (0, 1): conv1 1024 KB over node indices 0..2, relu1 2048 KB 1..3, add1 512 KB 3..end
//     (4294967295), mul1 4096 KB 4..4 -> live per index 1024, 3072, 3072, 2560, 4608 KB: peak
//     4608 KB; its TOTAL row says 7680 KB; the row "broken" ends (2) before it starts (5): skipped.
//   graph (sub_root, 2): matmul 3000 KB 0..1, gelu 100 KB 1..1 -> peak 3100 KB; no TOTAL row, so
//     its total is the sizes summed, 3100 KB.
//   rank: peak 4608 + 3100 = 7708 KB, total 7680 + 3100 = 10780 KB.
#include <gtest/gtest.h>

#include <string>

#include "io/byte_buffer.h"
#include "memory/memory_static.h"
#include "memory/memory_text.h"

namespace {

const std::string kStaticGraphDir = std::string(CS_TEST_DATA) + "/memory/static_graph";

TEST(MemoryStatic, PeakAndTotalByHand) {
  cs::io::Diagnostics diag;
  cs::memory::RankMemory m;
  uint64_t files = 0, bytes = 0;
  ASSERT_TRUE(cs::memory::read_static_op_mem(kStaticGraphDir + "/static_op_mem.csv", m, diag,
                                             &files, &bytes));
  EXPECT_EQ(m.static_graph_peak, 7708 * 1024);
  EXPECT_EQ(m.static_graph_total, 10780 * 1024);
  EXPECT_EQ(files, 1u);
  EXPECT_GT(bytes, 100u);
  EXPECT_EQ(diag.error_count(), 0u);
  EXPECT_EQ(diag.warning_count(), 1u);  // the "broken" row, said once
}

TEST(MemoryStatic, ReadWithTheRanksOtherMemoryFilesAndPacked) {
  cs::io::Diagnostics diag;
  uint64_t files = 0;
  auto m = cs::memory::read_memory_text(kStaticGraphDir, {}, diag, &files);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(files, 2u);                        // memory_record.csv, static_op_mem.csv
  EXPECT_EQ(m->peak_allocated, 30 * 1048576);  // PTA+GE's larger row
  EXPECT_EQ(m->static_graph_peak, 7708 * 1024);
  cs::io::ByteWriter w;
  m->pack(w);
  cs::io::ByteReader r(w.data());
  EXPECT_EQ(cs::memory::RankMemory::unpack(r), *m);
}

TEST(MemoryStatic, AbsentOrWithoutTheColumns) {
  cs::io::Diagnostics diag;
  cs::memory::RankMemory m;
  EXPECT_FALSE(cs::memory::read_static_op_mem(kStaticGraphDir + "/absent.csv", m, diag));
  EXPECT_EQ(m.static_graph_peak, -1);
  // memory_record.csv has none of static_op_mem's columns: said as a warning, nothing read.
  EXPECT_FALSE(cs::memory::read_static_op_mem(kStaticGraphDir + "/memory_record.csv", m, diag));
  EXPECT_EQ(m.static_graph_peak, -1);
  EXPECT_EQ(diag.warning_count(), 1u);
}

}  // namespace
