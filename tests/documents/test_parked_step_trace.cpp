// msprof_analyze/documents/parked_step_trace.h: the step trace kept for cluster_analysis.db waits
// with its cells in the spill file and comes back cell for cell; with no spill file it stays in
// memory.
#include "msprof_analyze/documents/parked_step_trace.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace {

using cs::documents::ClusterStepTrace;
using cs::documents::StepCell;

ClusterStepTrace sample_trace() {
  ClusterStepTrace t;
  t.header = {"Step", "Type", "Index", "Computing"};
  t.stages = {cs::documents::PyIntSet::from_list({0, 8}),
              cs::documents::PyIntSet::from_list({15, 7})};
  for (int r = 0; r < 300; ++r)
    t.add_row({StepCell::str(std::to_string(r % 3)), StepCell::str(r % 7 ? "rank" : "stage"),
               StepCell::num(cs::io::Num::integer(r)),
               r % 11 ? StepCell::num(cs::io::Num::real(r * 1.25)) : StepCell::null()});
  return t;
}

}  // namespace

TEST(ParkedStepTrace, CellsComeBackFromTheSpillFile) {
  const ClusterStepTrace expected = sample_trace();
  auto spill = cs::runtime::SpillFile::create();
  cs::documents::ParkedStepTrace parked(sample_trace(), spill);
  EXPECT_TRUE(parked.parked());
  EXPECT_EQ(spill->size(), 300u * 4 * (sizeof(double) + 1));  // the cells, nothing else
  const ClusterStepTrace back = parked.take();
  EXPECT_FALSE(parked.parked());
  EXPECT_EQ(back, expected);
  EXPECT_EQ(back.stages, expected.stages);
  EXPECT_EQ(back.stages[1].items(), expected.stages[1].items());  // CPython's order kept
  EXPECT_EQ(back.row(7)[1].s, "stage");
}

TEST(ParkedStepTrace, WithoutASpillFileItStaysInMemory) {
  cs::documents::ParkedStepTrace held(sample_trace(), nullptr);
  EXPECT_FALSE(held.parked());
  EXPECT_EQ(held.take(), sample_trace());

  cs::documents::ParkedStepTrace empty(ClusterStepTrace{}, cs::runtime::SpillFile::create());
  EXPECT_FALSE(empty.parked());
  EXPECT_TRUE(empty.take().empty());
}

TEST(ParkedStepTrace, CellsTakenOutLeaveNoRowsAndGoBackOnlyWhole) {
  ClusterStepTrace t = sample_trace();
  ClusterStepTrace::Cells cells = t.take_cells();
  EXPECT_EQ(t.row_count(), 0u);
  EXPECT_EQ(t.width(), 4u);
  ClusterStepTrace::Cells short_row = cells;
  short_row.values.pop_back();
  short_row.kinds.pop_back();
  EXPECT_THROW(t.put_cells(short_row), std::invalid_argument);
  ClusterStepTrace::Cells uneven = cells;
  uneven.kinds.pop_back();
  EXPECT_THROW(t.put_cells(uneven), std::invalid_argument);
  t.put_cells(std::move(cells));
  EXPECT_EQ(t, sample_trace());
}
