// ClusterCommunicationMatrix streamed from the parked ranks (msprof_analyze/recipes/
// communication_matrix_sum/matrix_sum_stream.h): the links leave the table when no later rank
// can add to them, go to sorted runs on disk and come back merged in the table's order. Checked
// against the merge of the frames held in memory (merge_communication_matrix: the concatenation
// grouped as pandas does), on generated ranks with several groups, self rows, point-to-point
// rows, "-total" ops, NULL keys and links reported by several ranks far apart (which keep their
// partition open across the walk, so the table is swept and the runs are several); and the runs
// held in memory when the file cannot be written (the runs themselves: test_sorted_runs.cpp).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <filesystem>
#include <string>
#include <vector>

#include "frame/frame_ops.h"
#include "msprof_analyze/recipes/communication_matrix_sum/communication_matrix_sum.h"
#include "msprof_analyze/recipes/communication_matrix_sum/matrix_sum_parked.h"
#include "msprof_analyze/recipes/communication_matrix_sum/matrix_sum_stream.h"
#include "msprof_analyze/recipes/parked_frames.h"
#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;
namespace cm = cs::recipes::communication_matrix_sum;
using cs::frame::Cell;
using cs::frame::Frame;
using cs::recipes::RankPartial;

namespace {

using cs::test::frame_cells;

// A rank's CommAnalyzerMatrix rows as the map step reads them (local ranks as text).
struct RankRows {
  Frame f;
  RankRows() {
    for (const char* c : {"hccl_op_name", "group_name", "src_rank", "dst_rank", "transport_type",
                          "transit_size", "transit_time", "bandwidth", "step", "type", "op_name"})
      f.add(c);
  }
  void add(const std::string& op, const std::string& group, int src, int dst, double size,
           double time, const std::string& step = "step1", const std::string& type = "collective",
           bool null_step = false) {
    const Cell row[] = {Cell::text(op),
                        Cell::text(group),
                        Cell::text(std::to_string(src)),
                        Cell::text(std::to_string(dst)),
                        Cell::text(src == dst ? "LOCAL" : "HCCS"),
                        Cell::real(size),
                        Cell::real(time),
                        Cell::real(time > 0 ? size / time : 0),
                        null_step ? Cell::null() : Cell::text(step),
                        Cell::text(type),
                        Cell::text(op + "_instance")};
    for (size_t c = 0; c < std::size(row); ++c) f.columns[c].cells.push_back(row[c]);
  }
};

// `n` ranks in groups of `size` (group g: ranks g*size ...), each reporting for its group its own
// row and a link to every member per op and step, a p2p link to the next member; with `far`,
// rank n-1 also reports rank 0's links of group "g0" (the same links: summed) and the last rank
// of each group a copy of its first member's "-total" link. `ops`: ops per step.
std::vector<RankPartial> generated_matrix_parts(int n, int size, int ops, bool far) {
  std::vector<RankPartial> parts(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    RankRows rows;
    const std::string group = "g" + std::to_string(r / size);
    const int local = r % size;
    for (const std::string step : {"step1", "step2"})
      for (int o = 0; o < ops; ++o)
        for (const std::string kind : {"-top1", "-middle", "-total"}) {
          const std::string op = "hcom_allReduce__" + std::to_string(o) + kind;
          for (int d = 0; d < size; ++d)
            rows.add(op, group, local, d, 1000.0 * (d + 1) + r + 0.25, 0.5 + 0.125 * o, step);
          if (far && r == n - 1 && group != "g0")
            for (int d = 0; d < size; ++d) rows.add(op, "g0", 0, d, 7.5, 0.5, step);
          if (local == size - 1 && kind == "-total") rows.add(op, group, 0, 1, 3.0 + r, 0.75, step);
        }
    rows.add("hcom_send__1-total", group, local, (local + 1) % size, 64.0, 2.0, "step1", "p2p");
    rows.add("hcom_send__1-total", group, local, local, 0.0, 0.0, "step1", "p2p");
    rows.add("hcom_allReduce__0-total", group, local, 0, 5.0, 1.0, "step1", "collective", true);
    rows.add("hcom_allReduce__0-total", "unmapped", local, 0, 5.0, 1.0);
    parts[static_cast<size_t>(r)].rank = r;
    parts[static_cast<size_t>(r)].used = true;
    parts[static_cast<size_t>(r)].frames["matrix"] = std::move(rows.f);
  }
  return parts;
}

Frame held_merge(const std::vector<RankPartial>& parts) {
  std::vector<const Frame*> frames;
  std::vector<int> ranks;
  for (const auto& p : parts) {
    frames.push_back(&p.frames.at("matrix"));
    ranks.push_back(p.rank);
  }
  return cm::merge_communication_matrix(frames, ranks);
}

void park_all(std::vector<RankPartial>& parts, cs::recipes::FramePark& store) {
  for (auto& p : parts) store.park(0, p);
}

// The database the recipe's merge of `parts` writes (on two threads).
std::string matrix_sum_db(std::vector<RankPartial> parts, const fs::path& dir) {
  return cs::test::merged_db(cm::CommunicationMatrixSum(), std::move(parts), dir, 2);
}

}  // namespace

TEST(MatrixSumStream, StreamedLinksAreTheHeldMergesRows) {
  for (bool far : {false, true}) {
    const auto held = generated_matrix_parts(24, 4, 2, far);
    const Frame expected = held_merge(held);
    ASSERT_GT(expected.rows(), 400u);
    // Held parts, parked parts (their touched partitions kept beside), and parts whose frames
    // were parked without anything beside (read back for the rank map).
    auto parts = held;
    EXPECT_EQ(frame_cells(cm::merge_parked(parts)), frame_cells(expected)) << far;
    cm::CommunicationMatrixSum recipe;
    auto parked = held;
    cs::recipes::FramePark store({&recipe});
    park_all(parked, store);
    ASSERT_TRUE(cm::any_parked(parked));
    auto file = parked[0].parked[0].file;
    const auto streamed = cm::stream_matrix(parked, file);
    EXPECT_EQ(frame_cells(cm::collect_matrix(*streamed)), frame_cells(expected)) << far;
    EXPECT_EQ(streamed->links.runs(), 1u);  // (in position order: one run)
    auto bare = held;
    cs::recipes::FramePark bare_store({&recipe});
    park_all(bare, bare_store);
    for (auto& p : bare) p.parked[0].beside.clear();
    EXPECT_EQ(frame_cells(cm::merge_parked(bare)), frame_cells(expected)) << far;
  }
}

TEST(MatrixSumStream, ALinkOpenAcrossTheWalkIsSweptOutWithTheRest) {
  // 80,000 links, group g0's open to the last rank: the table is swept (at 65,536 links) and
  // keeps only g0's; the rows come back in the held merge's order.
  const auto held = generated_matrix_parts(200, 8, 25, true);
  const Frame expected = held_merge(held);
  ASSERT_GT(expected.rows(), 70000u);
  cm::CommunicationMatrixSum recipe;
  auto parked = held;
  cs::recipes::FramePark store({&recipe});
  park_all(parked, store);
  const auto streamed = cm::stream_matrix(parked, parked[0].parked[0].file);
  EXPECT_EQ(frame_cells(cm::collect_matrix(*streamed)), frame_cells(expected));
  EXPECT_GE(streamed->links.runs(), 2u);
}

TEST(MatrixSumStream, TheStreamedTableIsTheHeldTablesBytes) {
  const fs::path dir = cs::test::temp_dir("matrix-stream-db");
  const auto held = generated_matrix_parts(24, 4, 2, true);
  const std::string expected = matrix_sum_db(held, dir / "held");
  ASSERT_GT(expected.size(), 4096u);
  cm::CommunicationMatrixSum recipe;
  auto parked = held;
  cs::recipes::FramePark store({&recipe});
  park_all(parked, store);
  EXPECT_TRUE(matrix_sum_db(std::move(parked), dir / "parked") == expected);
  // Integer sizes (an INTEGER column, summed as integers) and a text time (an object column:
  // SQLite writes the table).
  auto mixed = held;
  for (auto& p : mixed) {
    auto& size = cs::frame::find_column(p.frames.at("matrix"), "transit_size")->cells;
    for (auto& c : size) c = Cell::integer(static_cast<int64_t>(c.num()));
  }
  cs::frame::find_column(mixed[5].frames.at("matrix"), "transit_time")->cells[3] = Cell::text("x");
  const std::string mixed_expected = matrix_sum_db(mixed, dir / "mixed-held");
  cs::recipes::FramePark mixed_store({&recipe});
  park_all(mixed, mixed_store);
  EXPECT_TRUE(matrix_sum_db(std::move(mixed), dir / "mixed-parked") == mixed_expected);
  fs::remove_all(dir);
}

TEST(MatrixSumStream, ASpillFileThatFailsKeepsTheRunsInMemory) {
  const auto held = generated_matrix_parts(48, 4, 20, false);  // about 23,000 links: 6 chunks
  const Frame expected = held_merge(held);
  auto parts = held;
  auto file = cs::runtime::SpillFile::create();
  const char block[4096] = {};
  file->append(block, sizeof block);
  // Files of this process may not grow past two chunks more from here: the third chunk fails
  // (EFBIG, SIGXFSZ ignored) and it and the rest stay held.
  const uint64_t chunk = 4096 * (10 * sizeof(Cell) + sizeof(uint64_t));
  struct rlimit old {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto old_handler = signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old;
  small.rlim_cur = sizeof block + 2 * chunk + 1000;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::unique_ptr<cm::StreamedMatrix> streamed;
  try {
    streamed = cm::stream_matrix(parts, file);
  } catch (...) {
  }
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, old_handler);
  ASSERT_TRUE(streamed);
  EXPECT_FALSE(streamed->problem().empty());
  EXPECT_EQ(file->size(), sizeof block + 2 * chunk);  // two chunks went to the file
  EXPECT_EQ(frame_cells(cm::collect_matrix(*streamed)), frame_cells(expected));
}
