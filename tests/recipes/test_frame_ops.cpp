// recipes/frame/frame_ops.h: cells compared and hashed as their cell_key()s (without building the
// keys), groupby on those keys, and concatenation by copy or by move giving the same frame.
#include "recipes/frame/frame_ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace cs::recipes {
namespace {

std::vector<Cell> sample_cells() {
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  return {
      Cell::null(),      Cell::integer(0),   Cell::integer(1),
      Cell::integer(-7), Cell::real(0.0),    Cell::real(-0.0),
      Cell::real(1.0),   Cell::real(1.5),    Cell::real(-7.0),
      Cell::real(nan),   Cell::real(-nan),   Cell::real(inf),
      Cell::real(-inf),  Cell::real(9.3e18), Cell::real(1e300),
      Cell::text(""),    Cell::text("1"),    Cell::text("i:1"),
      Cell::text("abc"), Cell::text("abc"),  Cell::integer(std::numeric_limits<int64_t>::min())};
}

TEST(CellKey, EqualAndHashAgreeWithTheTextKeys) {
  const auto cells = sample_cells();
  for (const Cell& a : cells)
    for (const Cell& b : cells) {
      const bool same_key = cell_key(a) == cell_key(b);
      EXPECT_EQ(cell_key_equal(a, b), same_key) << cell_key(a) << " vs " << cell_key(b);
      if (same_key) {
        EXPECT_EQ(cell_key_hash(a), cell_key_hash(b)) << cell_key(a);
      }
    }
}

TEST(GroupRows, IntegralFloatsJoinTheirIntsAndNullKeysAreLeftOut) {
  Frame f;
  auto& k = f.add("k");
  for (const Cell& c :
       {Cell::integer(2), Cell::real(1.0), Cell::null(), Cell::integer(1), Cell::real(std::nan("")),
        Cell::real(2.5), Cell::real(std::nan("")), Cell::text("a")})
    k.push_back(c);
  const std::vector<std::vector<size_t>> first_seen = {{0}, {1, 3}, {4, 6}, {5}, {7}};
  EXPECT_EQ(group_rows(f, {"k"}, false), first_seen);
  EXPECT_TRUE(group_rows(f, {"k", "missing"}, false).empty());
}

TEST(GroupRows, SortedByKeyNumbersBeforeText) {
  Frame f;
  auto& k = f.add("k");
  auto& m = f.add("m");
  for (int r = 0; r < 6; ++r) m.push_back(Cell::integer(r % 2));
  for (const Cell& c : {Cell::text("b"), Cell::real(2.5), Cell::integer(1), Cell::text("a"),
                        Cell::real(1.0), Cell::integer(-3)})
    k.push_back(c);
  // rows 2 (1, 0) and 4 (1.0, 0) are one key
  const std::vector<std::vector<size_t>> sorted = {{5}, {2, 4}, {1}, {3}, {0}};
  EXPECT_EQ(group_rows(f, {"k", "m"}, true), sorted);
}

TEST(GroupRows, ManyGroupsKeepFirstSeenOrderAcrossTableGrowth) {
  // 3,000 rows over 1,000 keys (an int and a text, rows of a key far apart): the group table
  // grows many times; every group still holds its rows in order, groups by first appearance.
  Frame f;
  auto& a = f.add("a");
  auto& b = f.add("b");
  const size_t keys = 1000;
  for (size_t r = 0; r < 3 * keys; ++r) {
    const size_t k = (r * 7919) % keys;
    a.push_back(Cell::integer(static_cast<int64_t>(k % 37)));
    b.push_back(Cell::text("op_" + std::to_string(k / 37)));
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
  EXPECT_EQ(group_rows(f, {"a", "b"}, false), expected);
  EXPECT_EQ(group_rows(f, {"a", "b"}, true).size(), keys);
}

TEST(GroupRows, FlatGroupsAreTheSameGroupsInTheSameOrder) {
  // Keys with NULLs (left out), integral floats joining ints and texts, sorted or not: the flat
  // form's groups are group_rows' groups, and a missing key column gives no group in both.
  Frame f;
  auto& a = f.add("a");
  auto& b = f.add("b");
  for (size_t r = 0; r < 500; ++r) {
    const size_t k = (r * 31) % 53;
    a.push_back(k % 11 == 0 ? Cell::null()
                            : (k % 2 ? Cell::integer(static_cast<int64_t>(k % 7))
                                     : Cell::real(static_cast<double>(k % 7))));
    b.push_back(Cell::text("op_" + std::to_string(k % 5)));
  }
  for (const bool sort : {false, true}) {
    const auto nested = group_rows(f, {"a", "b"}, sort);
    const GroupedRows flat = group_rows_flat(f, {"a", "b"}, sort);
    ASSERT_EQ(flat.size(), nested.size());
    ASSERT_GT(flat.size(), 10u);
    for (size_t g = 0; g < flat.size(); ++g)
      EXPECT_EQ(std::vector<size_t>(flat[g].begin(), flat[g].end()), nested[g]) << g;
  }
  EXPECT_EQ(group_rows_flat(f, {"a", "missing"}, true).size(), 0u);
}

TEST(ConcatFrames, ByMoveEqualsByCopy) {
  std::vector<Frame> frames(2);
  frames[0].add("a").push_back(Cell::integer(1));
  frames[0].add("b").push_back(Cell::text("x"));
  frames[1].add("b").push_back(Cell::text("y"));
  auto& c = frames[1].add("c");
  c.force_object = true;
  c.push_back(Cell::real(0.5));
  const std::vector<const Frame*> ptrs = {&frames[0], &frames[1]};
  const auto names = column_union(ptrs);
  const Frame copied = concat_frames(ptrs, names);
  const Frame moved = concat_frames(std::move(frames), names);
  ASSERT_EQ(copied.columns.size(), 3u);
  ASSERT_EQ(moved.columns.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(moved.columns[i].name, copied.columns[i].name);
    EXPECT_EQ(moved.columns[i].force_object, copied.columns[i].force_object);
    EXPECT_EQ(moved.columns[i].cells, copied.columns[i].cells);
  }
  EXPECT_EQ(copied.columns[0].cells, (std::vector<Cell>{Cell::integer(1), Cell::null()}));
  EXPECT_TRUE(copied.columns[2].force_object);
}

TEST(AppendFrames, EqualsConcatAndKeepsTheHeadsStorage) {
  Frame a, b;
  a.add("x").push_back(Cell::integer(1));
  a.add("y").push_back(Cell::text("p"));
  b.add("y").push_back(Cell::text("q"));
  auto& z = b.add("z");
  z.force_object = true;
  z.push_back(Cell::real(0.5));
  const std::vector<std::string> names = {"z", "y", "x"};
  const Frame expected = concat_frames(std::vector<const Frame*>{&a, &b}, names);
  // The head made with room for the tail's row: its cells stay where they are.
  const std::vector<const Frame*> only_a = {&a};
  Frame head = concat_frames(only_a, column_union(only_a), b.rows());
  const Cell* y_cells = find_column(head, "y")->cells.data();
  const Frame got = append_frames(std::move(head), b, names);
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
