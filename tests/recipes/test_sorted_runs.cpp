// Rows kept in sorted runs on disk and merged back (msprof_analyze/recipes/sorted_runs.h), as
// communication_matrix_sum (ordered by position) and communication_time_sum (ordered by keys) use
// them: the merge is the order asked for, the earlier run first on equal order, over runs of many
// chunks, in the file and held; and a chunk that cannot be read back throws.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "frame/frame_ops.h"
#include "msprof_analyze/recipes/sorted_runs.h"
#include "support/test_files.h"

namespace fs = std::filesystem;
using cs::frame::Cell;
using cs::frame::Frame;
using cs::recipes::SortedRuns;

namespace {

// Rows of three columns: two keys with many repeats (an int and a text or NULL) and the row's
// number, so that the order of equal keys shows.
Frame random_frame_rows(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  Frame f;
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

// Every row of `columns` as text, in order.
std::vector<std::string> row_texts(const std::vector<std::vector<Cell>>& columns) {
  std::vector<std::string> out(columns.empty() ? 0 : columns.front().size());
  for (const auto& c : columns)
    for (size_t r = 0; r < c.size(); ++r) out[r] += cs::frame::cell_key(c[r]) + "|";
  return out;
}

// Every row the merge of `runs` gives, read `batch` rows at a time.
std::vector<std::vector<Cell>> merged(const SortedRuns& runs, size_t columns, size_t batch) {
  SortedRuns::Merger merger(runs);
  std::vector<std::vector<Cell>> got(columns), piece;
  while (merger.next(piece, batch)) {
    EXPECT_LE(piece.at(0).size(), batch);
    for (size_t c = 0; c < columns; ++c)
      got[c].insert(got[c].end(), piece[c].begin(), piece[c].end());
  }
  return got;
}

// A frame of the integer columns `columns` and the positions `pos`.
Frame position_batch(const std::vector<std::vector<int64_t>>& columns) {
  Frame f;
  for (size_t c = 0; c < columns.size(); ++c) {
    auto& col = f.add("c" + std::to_string(c));
    for (int64_t v : columns[c]) col.push_back(Cell::integer(v));
  }
  return f;
}

}  // namespace

TEST(SortedRuns, BatchesComeBackInPositionOrder) {
  auto file = cs::runtime::SpillFile::create();
  SortedRuns runs(2, 4096, file);
  // Batches: 0..9999 step 2, then the odd positions below 5000 (a second run), then 20000...
  auto batch = [&](uint64_t from, uint64_t to, uint64_t step) {
    Frame f;
    f.add("a");
    f.add("b");
    std::vector<uint64_t> pos;
    for (uint64_t p = from; p < to; p += step) {
      f.columns[0].cells.push_back(Cell::integer(static_cast<int64_t>(p)));
      f.columns[1].cells.push_back(p % 3 ? Cell::text("t" + std::to_string(p % 7)) : Cell::null());
      pos.push_back(p);
    }
    runs.add(f, pos);
  };
  for (uint64_t b = 0; b < 10000; b += 1000) batch(b, b + 1000, 2);
  batch(1, 5000, 2);
  batch(20000, 30000, 1);
  runs.finish();
  EXPECT_EQ(runs.runs(), 2u);
  EXPECT_EQ(runs.rows(), 5000u + 2500u + 10000u);
  EXPECT_TRUE(runs.problem().empty());
  const auto out = merged(runs, 2, 777);
  std::vector<int64_t> seen;
  for (size_t r = 0; r < out[0].size(); ++r) {
    const int64_t p = out[0][r].i();
    seen.push_back(p);
    EXPECT_EQ(cs::frame::cell_key(out[1][r]),
              cs::frame::cell_key(p % 3 ? Cell::text("t" + std::to_string(p % 7)) : Cell()));
  }
  std::vector<int64_t> want;
  for (int64_t p = 0; p < 5000; ++p) want.push_back(p);
  for (int64_t p = 5000; p < 10000; p += 2) want.push_back(p);
  for (int64_t p = 20000; p < 30000; ++p) want.push_back(p);
  EXPECT_EQ(seen, want);
}

TEST(SortedRuns, EqualPositionsComeEarlierRunFirst) {
  // Three runs over the same positions (column 0: the position, column 1: the run), in chunks of
  // 3 rows, so that a run's next chunk is read while the others are half-way through theirs.
  for (bool on_disk : {true, false}) {
    SortedRuns runs(2, 3, on_disk ? cs::runtime::SpillFile::create() : nullptr);
    const std::vector<std::pair<int64_t, int64_t>> spans = {{0, 20}, {0, 20}, {5, 15}};
    for (size_t r = 0; r < spans.size(); ++r)
      for (int64_t from = spans[r].first; from < spans[r].second; from += 7) {
        const int64_t to = std::min(from + 7, spans[r].second);
        std::vector<int64_t> p, run;
        std::vector<uint64_t> pos;
        for (int64_t v = from; v < to; ++v) {
          p.push_back(v);
          run.push_back(static_cast<int64_t>(r));
          pos.push_back(static_cast<uint64_t>(v));
        }
        runs.add(position_batch({p, run}), pos);
      }
    runs.finish();
    EXPECT_EQ(runs.runs(), 3u);
    std::vector<std::string> want;
    for (int64_t v = 0; v < 20; ++v)
      for (size_t r = 0; r < spans.size(); ++r)
        if (v >= spans[r].first && v < spans[r].second)
          want.push_back("i:" + std::to_string(v) + "|i:" + std::to_string(r) + "|");
    for (size_t batch : {size_t{1}, size_t{4}, size_t{1000}})
      EXPECT_EQ(row_texts(merged(runs, 2, batch)), want)
          << (on_disk ? "on disk" : "held") << ", batches of " << batch;
  }
}

TEST(SortedRuns, KeyRunsMergeToTheStableSortOfEveryRow) {
  const Frame all = random_frame_rows(5000, 7);
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
      SortedRuns runs(3, {0, 1}, run_rows, 1024, on_disk ? spill : nullptr);
      // Added in pieces of uneven size, the first rows of each piece skipped as a rank's rows are.
      size_t at = 0;
      for (size_t piece = 1; at < all.rows(); piece = piece % 97 + 13) {
        const size_t n = std::min(piece, all.rows() - at);
        Frame f;
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
      EXPECT_TRUE(row_texts(merged(runs, 3, 333)) == row_texts(expected))
          << "run_rows " << run_rows << (on_disk ? " on disk" : " held");
    }
  }
}

TEST(SortedRuns, AChunkThatCannotBeReadBackThrows) {
  // The spill file, found among the process's open files by its directory, cut short after the
  // runs are stored: the merge's reads come back short.
  cs::test::TempDir dir("cs_sorted_runs");
  auto file = cs::runtime::SpillFile::create(dir.str());
  int fd = -1;
  for (const auto& e : fs::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const fs::path target = fs::read_symlink(e.path(), ec);
    if (!ec && target.string().rfind(dir.str() + "/", 0) == 0)
      fd = std::stoi(e.path().filename().string());
  }
  ASSERT_GE(fd, 0) << "the spill file is not among /proc/self/fd";
  SortedRuns by_position(1, 4, file), by_keys(1, {0}, 10, 4, file);
  std::vector<uint64_t> pos;
  std::vector<int64_t> v;
  for (int64_t r = 0; r < 10; ++r) {
    pos.push_back(static_cast<uint64_t>(r));
    v.push_back(9 - r);
  }
  by_position.add(position_batch({v}), pos);
  by_position.finish();
  by_keys.add(position_batch({v}));
  by_keys.finish();
  ASSERT_GT(file->size(), 0u);
  ASSERT_EQ(::ftruncate(fd, 0), 0);
  for (const SortedRuns* runs : {&by_position, &by_keys}) {
    SortedRuns::Merger merger(*runs);
    std::vector<std::vector<Cell>> out;
    EXPECT_THROW(merger.next(out, 100), std::runtime_error);
  }
}
