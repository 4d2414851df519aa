// frame/frame_ops.h: cells compared and hashed as their cell_key()s (without building the
// keys), groupby on those keys, and concatenation by copy or by move giving the same frame.
#include "frame/frame_ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace cs::recipes {
namespace {

std::vector<frame::Cell> sample_cells() {
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  return {frame::Cell::null(),
          frame::Cell::integer(0),
          frame::Cell::integer(1),
          frame::Cell::integer(-7),
          frame::Cell::real(0.0),
          frame::Cell::real(-0.0),
          frame::Cell::real(1.0),
          frame::Cell::real(1.5),
          frame::Cell::real(-7.0),
          frame::Cell::real(nan),
          frame::Cell::real(-nan),
          frame::Cell::real(inf),
          frame::Cell::real(-inf),
          frame::Cell::real(9.3e18),
          frame::Cell::real(1e300),
          frame::Cell::text(""),
          frame::Cell::text("1"),
          frame::Cell::text("i:1"),
          frame::Cell::text("abc"),
          frame::Cell::text("abc"),
          frame::Cell::integer(std::numeric_limits<int64_t>::min())};
}

TEST(CellKey, EqualAndHashAgreeWithTheTextKeys) {
  const auto cells = sample_cells();
  for (const frame::Cell& a : cells)
    for (const frame::Cell& b : cells) {
      const bool same_key = frame::cell_key(a) == frame::cell_key(b);
      EXPECT_EQ(frame::cell_key_equal(a, b), same_key)
          << frame::cell_key(a) << " vs " << frame::cell_key(b);
      if (same_key) {
        EXPECT_EQ(frame::cell_key_hash(a), frame::cell_key_hash(b)) << frame::cell_key(a);
      }
    }
}

TEST(GroupRows, IntegralFloatsJoinTheirIntsAndNullKeysAreLeftOut) {
  frame::Frame f;
  auto& k = f.add("k");
  for (const frame::Cell& c :
       {frame::Cell::integer(2), frame::Cell::real(1.0), frame::Cell::null(),
        frame::Cell::integer(1), frame::Cell::real(std::nan("")), frame::Cell::real(2.5),
        frame::Cell::real(std::nan("")), frame::Cell::text("a")})
    k.push_back(c);
  const std::vector<std::vector<size_t>> first_seen = {{0}, {1, 3}, {4, 6}, {5}, {7}};
  EXPECT_EQ(frame::group_rows(f, {"k"}, false), first_seen);
  EXPECT_TRUE(frame::group_rows(f, {"k", "missing"}, false).empty());
}

TEST(GroupRows, SortedByKeyNumbersBeforeText) {
  frame::Frame f;
  auto& k = f.add("k");
  auto& m = f.add("m");
  for (int r = 0; r < 6; ++r) m.push_back(frame::Cell::integer(r % 2));
  for (const frame::Cell& c :
       {frame::Cell::text("b"), frame::Cell::real(2.5), frame::Cell::integer(1),
        frame::Cell::text("a"), frame::Cell::real(1.0), frame::Cell::integer(-3)})
    k.push_back(c);
  // rows 2 (1, 0) and 4 (1.0, 0) are one key
  const std::vector<std::vector<size_t>> sorted = {{5}, {2, 4}, {1}, {3}, {0}};
  EXPECT_EQ(frame::group_rows(f, {"k", "m"}, true), sorted);
}

TEST(GroupRows, ManyGroupsKeepFirstSeenOrderAcrossTableGrowth) {
  // 3,000 rows over 1,000 keys (an int and a text, rows of a key far apart): the group table
  // grows many times; every group still holds its rows in order, groups by first appearance.
  frame::Frame f;
  auto& a = f.add("a");
  auto& b = f.add("b");
  const size_t keys = 1000;
  for (size_t r = 0; r < 3 * keys; ++r) {
    const size_t k = (r * 7919) % keys;
    a.push_back(frame::Cell::integer(static_cast<int64_t>(k % 37)));
    b.push_back(frame::Cell::text("op_" + std::to_string(k / 37)));
  }
  std::vector<std::vector<size_t>> expected;
  std::vector<long> group_of(keys, -1);
  for (size_t r = 0; r < 3 * keys; ++r) {
    const size_t k = (r * 7919) % keys;
    if (group_of[k] < 0) {
      group_of[k] = static_cast<long>(expected.size());
      expected.emplace_back();
    }
    expected[static_cast<size_t>(group_of[k])].push_back(r);
  }
  EXPECT_EQ(frame::group_rows(f, {"a", "b"}, false), expected);
  EXPECT_EQ(frame::group_rows(f, {"a", "b"}, true).size(), keys);
}

TEST(GroupRows, FlatGroupsAreTheSameGroupsInTheSameOrder) {
  // Keys with NULLs (left out), integral floats joining ints and texts, sorted or not: the flat
  // form's groups are group_rows' groups, and a missing key column gives no group in both.
  frame::Frame f;
  auto& a = f.add("a");
  auto& b = f.add("b");
  for (size_t r = 0; r < 500; ++r) {
    const size_t k = (r * 31) % 53;
    a.push_back(k % 11 == 0 ? frame::Cell::null()
                            : (k % 2 ? frame::Cell::integer(static_cast<int64_t>(k % 7))
                                     : frame::Cell::real(static_cast<double>(k % 7))));
    b.push_back(frame::Cell::text("op_" + std::to_string(k % 5)));
  }
  for (const bool sort : {false, true}) {
    const auto nested = frame::group_rows(f, {"a", "b"}, sort);
    const frame::GroupedRows flat = frame::group_rows_flat(f, {"a", "b"}, sort);
    ASSERT_EQ(flat.size(), nested.size());
    ASSERT_GT(flat.size(), 10u);
    for (size_t g = 0; g < flat.size(); ++g)
      EXPECT_EQ(std::vector<size_t>(flat[g].begin(), flat[g].end()), nested[g]) << g;
  }
  EXPECT_EQ(frame::group_rows_flat(f, {"a", "missing"}, true).size(), 0u);
}

TEST(ConcatFrames, ByMoveEqualsByCopy) {
  std::vector<frame::Frame> frames(2);
  frames[0].add("a").push_back(frame::Cell::integer(1));
  frames[0].add("b").push_back(frame::Cell::text("x"));
  frames[1].add("b").push_back(frame::Cell::text("y"));
  auto& c = frames[1].add("c");
  c.force_object = true;
  c.push_back(frame::Cell::real(0.5));
  const std::vector<const frame::Frame*> ptrs = {&frames[0], &frames[1]};
  const auto names = frame::column_union(ptrs);
  const frame::Frame copied = frame::concat_frames(ptrs, names);
  const frame::Frame moved = frame::concat_frames(std::move(frames), names);
  ASSERT_EQ(copied.columns.size(), 3u);
  ASSERT_EQ(moved.columns.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(moved.columns[i].name, copied.columns[i].name);
    EXPECT_EQ(moved.columns[i].force_object, copied.columns[i].force_object);
    EXPECT_EQ(moved.columns[i].cells, copied.columns[i].cells);
  }
  EXPECT_EQ(copied.columns[0].cells,
            (std::vector<frame::Cell>{frame::Cell::integer(1), frame::Cell::null()}));
  EXPECT_TRUE(copied.columns[2].force_object);
}

TEST(AppendFrames, EqualsConcatAndKeepsTheHeadsStorage) {
  frame::Frame a, b;
  a.add("x").push_back(frame::Cell::integer(1));
  a.add("y").push_back(frame::Cell::text("p"));
  b.add("y").push_back(frame::Cell::text("q"));
  auto& z = b.add("z");
  z.force_object = true;
  z.push_back(frame::Cell::real(0.5));
  const std::vector<std::string> names = {"z", "y", "x"};
  const frame::Frame expected =
      frame::concat_frames(std::vector<const frame::Frame*>{&a, &b}, names);
  // The head made with room for the tail's row: its cells stay where they are.
  const std::vector<const frame::Frame*> only_a = {&a};
  frame::Frame head = frame::concat_frames(only_a, frame::column_union(only_a), b.rows());
  const frame::Cell* y_cells = frame::find_column(head, "y")->cells.data();
  const frame::Frame got = frame::append_frames(std::move(head), b, names);
  ASSERT_EQ(got.columns.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(got.columns[i].name, expected.columns[i].name);
    EXPECT_EQ(got.columns[i].force_object, expected.columns[i].force_object);
    EXPECT_EQ(got.columns[i].cells, expected.columns[i].cells);
  }
  EXPECT_EQ(got.columns[1].cells.data(), y_cells);
  EXPECT_EQ(head.rows(), 0u);
}

}  // namespace
}  // namespace cs::recipes
