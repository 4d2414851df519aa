// communication_time_sum's "Total Op Info" rows kept in sorted runs on disk between the two walks
// (communication_time_sum/time_sum_runs.h): the runs merged back are the stable sort of every row
// added, and a job whose totals fill several runs writes the database the held merge writes, byte
// for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "frame/frame_ops.h"
#include "msprof_analyze/recipes/communication_group_map/communication_group_map.h"
#include "msprof_analyze/recipes/communication_time_sum/communication_time_sum.h"
#include "msprof_analyze/recipes/communication_time_sum/time_sum_runs.h"
#include "msprof_analyze/recipes/communication_time_sum/time_sum_stream.h"
#include "msprof_analyze/recipes/parked_frames.h"
#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;
namespace ct = cs::recipes::communication_time_sum;
using cs::frame::Cell;
using cs::recipes::RankPartial;

namespace {

// Rows of three columns: two keys with many repeats (an int and a text or NULL) and the row's
// number, so that the order of equal keys shows.
cs::frame::Frame random_rows(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  cs::frame::Frame f;
  auto& a = f.add("a");
  auto& b = f.add("b");
  auto& id = f.add("id");
  for (size_t r = 0; r < n; ++r) {
    a.push_back(Cell::integer(static_cast<int64_t>(gen() % 5)));
    const unsigned t = gen() % 4;
    b.push_back(t == 0 ? Cell::null() : Cell::text("g" + std::to_string(t)));
    id.push_back(Cell::integer(static_cast<int64_t>(r)));
  }
  return f;
}

// Every row of `f` as text, in order.
std::vector<std::string> row_texts(const std::vector<std::vector<Cell>>& columns) {
  std::vector<std::string> out(columns.empty() ? 0 : columns.front().size());
  for (const auto& c : columns)
    for (size_t r = 0; r < c.size(); ++r) out[r] += cs::frame::cell_key(c[r]) + "|";
  return out;
}

// The database communication_time_sum's merge of `parts` writes.
std::string merged_db(std::vector<RankPartial> parts, const fs::path& dir) {
  fs::create_directories(dir);
  ct::CommunicationTimeSum recipe;
  cs::recipes::RecipeOutput out;
  out.cluster_output_dir = dir.string();
  cs::io::Diagnostics diag;
  const cs::recipes::Recipe::WriteStep write = recipe.merge(parts, 1, diag);
  EXPECT_TRUE(write && write(out, diag));
  EXPECT_FALSE(diag.has_errors());
  return cs::test::read_file(dir / "cluster_analysis.db");
}

}  // namespace

TEST(TimeSumRuns, MergedRunsAreTheStableSortOfEveryRow) {
  const cs::frame::Frame all = random_rows(5000, 7);
  // The reference: a stable sort by (a, b) of every row.
  std::vector<size_t> order(all.rows());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    for (size_t k : {size_t{0}, size_t{1}}) {
      const int d = cs::frame::compare_cells(all.columns[k].cells[x], all.columns[k].cells[y]);
      if (d != 0) return d < 0;
    }
    return false;
  });
  std::vector<std::vector<Cell>> expected(3);
  for (size_t c = 0; c < 3; ++c)
    for (size_t r : order) expected[c].push_back(all.columns[c].cells[r]);
  auto spill = cs::runtime::SpillFile::create();
  // One run; runs of several chunks (1024 rows a chunk); many small runs; in the file and held.
  for (size_t run_rows : {size_t{100000}, size_t{1500}, size_t{37}}) {
    for (bool on_disk : {true, false}) {
      ct::KeySortedRuns runs(3, {0, 1}, run_rows, on_disk ? spill : nullptr);
      // Added in pieces of uneven size, the first rows of each piece skipped as a rank's rows are.
      size_t at = 0;
      for (size_t piece = 1; at < all.rows(); piece = piece % 97 + 13) {
        const size_t n = std::min(piece, all.rows() - at);
        cs::frame::Frame f;
        for (size_t c = 0; c < 3; ++c) {
          auto& col = f.add(all.columns[c].name);
          col.push_back(Cell::integer(-1));  // (skipped: from = 1)
          col.cells.insert(col.cells.end(), all.columns[c].cells.begin() + static_cast<long>(at),
                           all.columns[c].cells.begin() + static_cast<long>(at + n));
        }
        runs.add(f, 1);
        at += n;
      }
      runs.finish();
      EXPECT_EQ(runs.rows(), all.rows());
      EXPECT_EQ(runs.runs(), (all.rows() + run_rows - 1) / run_rows);
      EXPECT_TRUE(runs.problem().empty());
      ct::KeySortedRuns::Merger merged(runs);
      std::vector<std::vector<Cell>> got(3), piece;
      while (merged.next(piece, 333))
        for (size_t c = 0; c < 3; ++c)
          got[c].insert(got[c].end(), piece[c].begin(), piece[c].end());
      EXPECT_TRUE(row_texts(got) == row_texts(expected))
          << "run_rows " << run_rows << (on_disk ? " on disk" : " held");
    }
  }
}

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
  const std::string expected = merged_db(held, dir / "held");
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
    const std::string got = merged_db(std::move(parts), dir / (std::string("parked") + run_rows));
    unsetenv("CS_TIME_SUM_RUN_ROWS");
    EXPECT_TRUE(got == expected) << "runs of " << run_rows << " rows";
  }
  fs::remove_all(dir);
}
