// msprof_analyze/recipes/communication_matrix_sum/msprof_matrix_rows: msprof's per-instance
// CommAnalyzerMatrix reshaped as communication_matrix_sum does, on rows whose result is worked out
// by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "frame/frame_ops.h"
#include "msprof_analyze/recipes/communication_matrix_sum/msprof_matrix_rows.h"

using cs::frame::Cell;
using cs::frame::Frame;

namespace {

Frame instances() {
  Frame f;
  for (const char* c : {"hccl_op_name", "group_name", "src_rank", "dst_rank", "transport_type",
                        "transit_size", "transit_time", "bandwidth"})
    f.add(c);
  auto row = [&](const char* name, double size, double time, Cell bw) {
    const std::vector<Cell> cells = {
        Cell::text(name),   Cell::text("g"),  Cell::text("0"),  Cell::text("1"),
        Cell::text("HCCS"), Cell::real(size), Cell::real(time), bw};
    for (size_t c = 0; c < cells.size(); ++c) f.columns[c].push_back(cells[c]);
  };
  row("hcom_allReduce__1_0_1", 2.0, 1.0, Cell::real(2.0));
  row("hcom_allReduce__1_1_1", 4.0, 1.0, Cell::real(4.0));
  row("hcom_allReduce__1_2_1", 1.0, 1.0, Cell::real(1.0));
  row("hcom_send__2_0_1", 3.0, 0.0, Cell::integer(0));
  return f;
}

std::vector<std::string> column(const Frame& f, const char* name) {
  std::vector<std::string> out;
  for (const Cell& c : cs::frame::find_column(f, name)->cells)
    out.push_back(c.kind == Cell::Kind::kNull ? "NULL" : std::string(c.str()));
  return out;
}

TEST(MsprofMatrixRows, RecognisesTheLayout) {
  EXPECT_TRUE(cs::recipes::communication_matrix_sum::is_msprof_matrix(instances()));
  Frame torch_npu = instances();
  torch_npu.add("step");
  EXPECT_FALSE(cs::recipes::communication_matrix_sum::is_msprof_matrix(torch_npu));
}

TEST(MsprofMatrixRows, ExamplesByAscendingBandwidthThenTotals) {
  const Frame out = cs::recipes::communication_matrix_sum::reshape_msprof_matrix(instances());
  // allReduce's three records by bandwidth 1 (__1_2_1), 2 (__1_0_1), 4 (__1_1_1): top1 is the
  // slowest, bottom1 the fastest, bottom2/bottom3 the next ones up, middle index 3 / 2 = 1; the
  // send has one record (no bottom2/bottom3). Collective groups sort before p2p ones.
  EXPECT_EQ(
      column(out, "hccl_op_name"),
      (std::vector<std::string>{"hcom_allReduce-top1", "hcom_allReduce-bottom1",
                                "hcom_allReduce-bottom2", "hcom_allReduce-bottom3",
                                "hcom_allReduce-middle", "hcom_send-top1", "hcom_send-bottom1",
                                "hcom_send-middle", "hcom_allReduce-total", "hcom_send-total"}));
  EXPECT_EQ(column(out, "op_name"),
            (std::vector<std::string>{"hcom_allReduce__1_2_1", "hcom_allReduce__1_1_1",
                                      "hcom_allReduce__1_0_1", "hcom_allReduce__1_2_1",
                                      "hcom_allReduce__1_0_1", "hcom_send__2_0_1",
                                      "hcom_send__2_0_1", "hcom_send__2_0_1", "NULL", "NULL"}));
  EXPECT_EQ(column(out, "type"),
            (std::vector<std::string>{"collective", "collective", "collective", "collective",
                                      "collective", "p2p", "p2p", "p2p", "collective", "p2p"}));
  EXPECT_EQ(column(out, "step"), std::vector<std::string>(10, "step"));
  // Totals: summed sizes and times, bandwidth size / time (3 / 0 is inf).
  const auto& size = cs::frame::find_column(out, "transit_size")->cells;
  const auto& time = cs::frame::find_column(out, "transit_time")->cells;
  const auto& bw = cs::frame::find_column(out, "bandwidth")->cells;
  EXPECT_EQ(size[8].num(), 7.0);
  EXPECT_EQ(time[8].num(), 3.0);
  EXPECT_DOUBLE_EQ(bw[8].num(), 7.0 / 3.0);
  EXPECT_EQ(size[9].num(), 3.0);
  EXPECT_TRUE(std::isinf(bw[9].num()));
}

TEST(MsprofMatrixRows, RowsWithANullAreLeftOutOfTheExamples) {
  Frame f = instances();
  cs::frame::find_column(f, "transport_type")->cells[1] = Cell::null();  // the fastest allReduce
  const Frame out = cs::recipes::communication_matrix_sum::reshape_msprof_matrix(f);
  const auto names = column(out, "hccl_op_name");
  // bottom1 (the null row) is dropped; the total still counts its size, and its transport
  // type is the group's first non-null one.
  EXPECT_EQ(std::count(names.begin(), names.end(), "hcom_allReduce-bottom1"), 0);
  EXPECT_EQ(names.size(), 9u);
  EXPECT_EQ(cs::frame::find_column(out, "transit_size")->cells[7].num(), 7.0);
  EXPECT_EQ(column(out, "transport_type")[7], "HCCS");
}

}  // namespace
