// The collective table writer (io/hdf5/hdf5_collective_table.h) on a serial file, one process:
// rows given as keyed blocks land in key order, and the table equals the one Hdf5File::write_table
// writes from the rows already in that order (h5diff, HDF5's own comparison). Several processes
// are tested end to end under mpirun (tests/cli/test_cluster_mpi.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "io/hdf5/hdf5_collective_table.h"
#include "io/hdf5/hdf5_writer.h"
#include "io/table.h"
#include "support/missing_tool.h"
#include "support/test_files.h"

namespace {

namespace fs = std::filesystem;
using cs::io::Diagnostics;
using cs::io::Hdf5CollectiveTable;
using cs::io::Hdf5CollectiveWrite;
using cs::io::Hdf5File;
using cs::io::Hdf5RowBlock;
using cs::io::Table;

// Rows of ranks `ranks`, each rank `per_rank` rows: (rank, name, value).
Table rank_rows(const std::vector<int>& ranks, int per_rank) {
  Table t("per_rank");
  auto& rank = t.add_int("rank");
  auto& name = t.add_string("name");
  auto& value = t.add_double("value_ms", "ms");
  for (int r : ranks)
    for (int i = 0; i < per_rank; ++i) {
      rank.ints.push_back(r);
      name.strings.push_back("op_" + std::string(static_cast<size_t>(r % 5 + 1), 'x') + "_" +
                             std::to_string(i));
      value.doubles.push_back(r * 1.5 + i * 0.25);
    }
  return t;
}

int h5diff(const fs::path& a, const fs::path& b, std::string& out) {
  return cs::test::run_merged("h5diff " + a.string() + " " + b.string(), out);
}

class Hdf5CollectiveTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists("/usr/bin/h5diff")) CS_MISSING_TOOL("h5diff (hdf5-tools)");
  }
  cs::test::TempDir dir{"cs_hdf5_collective"};
};

TEST_F(Hdf5CollectiveTableTest, KeyedBlocksLandInKeyOrderLikeWriteTable) {
  // Reference: the rows already in rank order, written by the serial writer.
  const fs::path ref = dir.path() / "ref.h5";
  {
    Diagnostics d;
    auto f = Hdf5File::create(ref.string(), d);
    ASSERT_TRUE(f);
    ASSERT_TRUE(f->write_table(rank_rows({0, 1, 2, 3, 4, 5}, 3), d));
    ASSERT_TRUE(f->finish(d)) << d.items().size();
  }
  // Collective writer, one process: the blocks given out of rank order (5, 0, 3, 1, 4, 2).
  const fs::path got = dir.path() / "got.h5";
  {
    Diagnostics d;
    auto f = Hdf5File::create(got.string(), d);
    ASSERT_TRUE(f);
    const std::vector<int> order = {5, 0, 3, 1, 4, 2};
    std::vector<Hdf5RowBlock> blocks;
    for (int r : order) blocks.push_back({static_cast<uint64_t>(r), 3});
    EXPECT_EQ(cs::io::write_table_collective(*f, rank_rows(order, 3), blocks, d),
              Hdf5CollectiveWrite::kWritten);
    EXPECT_TRUE(f->end_collective(d));  // a serial file: nothing to end, it stays open
    ASSERT_TRUE(f->finish(d));
  }
  std::string out;
  EXPECT_EQ(h5diff(ref, got, out), 0) << out;
  // h5diff does see a difference: rows in another order.
  const fs::path other = dir.path() / "other.h5";
  {
    Diagnostics d;
    auto f = Hdf5File::create(other.string(), d);
    ASSERT_TRUE(f);
    ASSERT_TRUE(f->write_table(rank_rows({1, 0, 2, 3, 4, 5}, 3), d));
    ASSERT_TRUE(f->finish(d));
  }
  EXPECT_EQ(h5diff(ref, other, out), 1) << out;
}

TEST_F(Hdf5CollectiveTableTest, AppendsInSeveralCallsAndEmptyTables) {
  const fs::path ref = dir.path() / "ref.h5";
  {
    Diagnostics d;
    auto f = Hdf5File::create(ref.string(), d);
    ASSERT_TRUE(f);
    ASSERT_TRUE(f->write_table(rank_rows({0, 1, 2, 3}, 2), d));
    Table empty = rank_rows({}, 0);
    empty.name = "no_rows";
    ASSERT_TRUE(f->write_table(empty, d));
    ASSERT_TRUE(f->finish(d));
  }
  const fs::path got = dir.path() / "got.h5";
  {
    Diagnostics d;
    auto f = Hdf5File::create(got.string(), d);
    ASSERT_TRUE(f);
    // Two appends of two ranks each, created for more rows than come (cut by finish).
    const Table schema = rank_rows({}, 0);
    auto t = Hdf5CollectiveTable::create(*f, schema, {9}, 100, d);
    ASSERT_TRUE(t);
    ASSERT_TRUE(t->append(rank_rows({1, 0}, 2), {{1, 2}, {0, 2}}, d));
    ASSERT_TRUE(t->append(rank_rows({2, 3}, 2), {{2, 2}, {3, 2}}, d));
    EXPECT_EQ(t->rows(), 8u);
    ASSERT_TRUE(t->finish(d));
    Table empty = rank_rows({}, 0);
    empty.name = "no_rows";
    EXPECT_EQ(cs::io::write_table_collective(*f, empty, {}, d), Hdf5CollectiveWrite::kWritten);
    ASSERT_TRUE(f->finish(d));
  }
  std::string out;
  EXPECT_EQ(h5diff(ref, got, out), 0) << out;
}

TEST_F(Hdf5CollectiveTableTest, RowsThatDoNotFitFailTheFile) {
  Diagnostics d;
  const fs::path path = dir.path() / "bad.h5";
  auto f = Hdf5File::create(path.string(), d);
  ASSERT_TRUE(f);
  // The same key twice.
  EXPECT_EQ(cs::io::write_table_collective(*f, rank_rows({1, 1}, 1), {{1, 1}, {1, 1}}, d),
            Hdf5CollectiveWrite::kFailed);
  EXPECT_TRUE(f->failed());
  EXPECT_TRUE(d.has_errors());
  EXPECT_FALSE(f->finish(d));
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));

  // Blocks that do not cover the rows, and a value wider than its column: each fails.
  Diagnostics d2;
  auto g = Hdf5File::create(path.string(), d2);
  ASSERT_TRUE(g);
  auto t = Hdf5CollectiveTable::create(*g, rank_rows({}, 0), {9}, 2, d2);
  ASSERT_TRUE(t);
  EXPECT_FALSE(t->append(rank_rows({0}, 2), {{0, 1}}, d2));
  ASSERT_TRUE(d2.has_errors());
  EXPECT_NE(d2.items().front().what.find("do not cover"), std::string::npos)
      << d2.items().front().what;
}

TEST_F(Hdf5CollectiveTableTest, ValueWiderThanItsColumnIsRefused) {
  Diagnostics d;
  auto f = Hdf5File::create((dir.path() / "wide.h5").string(), d);
  ASSERT_TRUE(f);
  auto t = Hdf5CollectiveTable::create(*f, rank_rows({}, 0), {4}, 2, d);
  ASSERT_TRUE(t);
  EXPECT_FALSE(t->append(rank_rows({0}, 2), {{0, 2}}, d));  // "op_x_0" is 6 bytes
  ASSERT_TRUE(d.has_errors());
  EXPECT_NE(d.items().front().what.find("wider"), std::string::npos) << d.items().front().what;
}

TEST_F(Hdf5CollectiveTableTest, VariableLengthStringsAreLeftToTheSerialWriter) {
  // One 4 KiB value among short ones: the serial writer would store the column as
  // variable-length strings, which HDF5 cannot write through MPI-IO: nothing is written.
  Table t = rank_rows({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 4);
  t.columns[1].strings[3] = std::string(4096, 'n');
  Diagnostics d;
  const fs::path path = dir.path() / "vl.h5";
  auto f = Hdf5File::create(path.string(), d);
  ASSERT_TRUE(f);
  std::vector<Hdf5RowBlock> blocks;
  for (uint64_t r = 0; r < 10; ++r) blocks.push_back({r, 4});
  EXPECT_EQ(cs::io::write_table_collective(*f, t, blocks, d), Hdf5CollectiveWrite::kSerial);
  EXPECT_FALSE(d.has_errors());
  ASSERT_TRUE(f->write_table(t, d));  // the root's serial writer takes it
  ASSERT_TRUE(f->finish(d));
}

}  // namespace
