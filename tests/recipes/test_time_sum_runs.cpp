// communication_time_sum's "Total Op Info" rows kept in sorted runs on disk between the two walks
// (communication_time_sum/time_sum_stream.h, recipes/sorted_runs.h; the runs themselves:
// test_sorted_runs.cpp): a job whose totals fill several runs writes the database the held merge
// writes, byte for byte.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "frame/frame_ops.h"
#include "msprof_analyze/recipes/communication_group_map/communication_group_map.h"
#include "msprof_analyze/recipes/communication_time_sum/communication_time_sum.h"
#include "msprof_analyze/recipes/communication_time_sum/time_sum_stream.h"
#include "msprof_analyze/recipes/parked_frames.h"
#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;
namespace ct = cs::recipes::communication_time_sum;
using cs::frame::Cell;
using cs::recipes::RankPartial;

namespace {

// The database communication_time_sum's merge of `parts` writes.
std::string time_sum_db(std::vector<RankPartial> parts, const fs::path& dir) {
  return cs::test::merged_db(ct::CommunicationTimeSum(), std::move(parts), dir);
}

}  // namespace

TEST(TimeSumRuns, TotalsInManyRunsWriteTheHeldMergesBytes) {
  // 24 ranks (the real job's two, repeated), every rank parked: each rank's totals interleave with
  // the others' in the table (the time table's totals sort by step first, the bandwidth's by group
  // first), so runs of a few rows each must be merged, not appended.
  ct::CommunicationTimeSum recipe;
  auto held = cs::test::map_real_db_ranks(recipe, 24);
  // Steps that fall against the ranks' order (the real job has one): the time table's totals,
  // sorted by step first, then interleave ranks far apart.
  for (auto& p : held)
    for (const char* key : {"time", "bandwidth"})
      for (auto& c : cs::frame::find_column(p.frames.at(key), "step")->cells)
        c = Cell::text("step" + std::to_string((31 - p.rank) % 4));
  const fs::path dir = cs::test::temp_dir("time-sum-runs");
  const std::string expected = time_sum_db(held, dir / "held");
  ASSERT_GT(expected.size(), 4096u);
  {  // the totals do fill several runs
    auto parts = held;
    cs::recipes::FramePark store({&recipe});
    for (auto& p : parts) store.park(0, p);
    cs::frame::Frame mapping;
    ASSERT_TRUE(cs::recipes::communication_group_map::build_group_mapping(parts, mapping));
    const auto tables = ct::prepare_streamed_tables(parts, mapping, 5);
    EXPECT_GT(tables->time.totals->runs(), 4u);
    EXPECT_GT(tables->bandwidth.totals->runs(), 4u);
    EXPECT_GE(tables->time.totals->rows(), 24u);
  }
  for (const char* run_rows : {"1", "5", "64"}) {
    auto parts = held;
    cs::recipes::FramePark store({&recipe});
    for (auto& p : parts) store.park(0, p);
    setenv("CS_TIME_SUM_RUN_ROWS", run_rows, 1);
    const std::string got = time_sum_db(std::move(parts), dir / (std::string("parked") + run_rows));
    unsetenv("CS_TIME_SUM_RUN_ROWS");
    EXPECT_TRUE(got == expected) << "runs of " << run_rows << " rows";
  }
  fs::remove_all(dir);
}
