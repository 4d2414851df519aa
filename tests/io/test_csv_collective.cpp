// write_table_csv_collective: a table's CSV file written by several processes at once, each its
// own blocks of rows at their offsets, is write_table_csv's file of the whole table in key order.
// The processes are threads here, joined by an io::Collective whose agreements meet at a barrier:
// the same calls, in the same order, as MPI's processes make them.
#include <gtest/gtest.h>

#include <barrier>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "io/csv/csv_collective.h"
#include "io/csv/csv_writer.h"
#include "support/test_files.h"

namespace fs = std::filesystem;
using cs::io::Diagnostics;
using cs::io::RowBlock;
using cs::io::Table;
using cs::test::slurp;
using cs::test::TempDir;

namespace {

// N threads as N processes: each all_gather / all_max meets the others at a barrier.
class ThreadCollectives {
 public:
  explicit ThreadCollectives(int n) : n_(n), barrier_(n), slots_(static_cast<size_t>(n)) {}

  class One : public cs::io::Collective {
   public:
    One(ThreadCollectives& all, int p) : all_(all), p_(p) {}
    int process() const override { return p_; }
    int processes() const override { return all_.n_; }
    std::vector<std::vector<uint64_t>> all_gather(
        const std::vector<uint64_t>& mine) const override {
      all_.slots_[static_cast<size_t>(p_)] = mine;
      all_.barrier_.arrive_and_wait();
      std::vector<std::vector<uint64_t>> out = all_.slots_;
      all_.barrier_.arrive_and_wait();  // every thread has read the slots
      return out;
    }
    std::vector<uint64_t> all_max(const std::vector<uint64_t>& values) const override {
      std::vector<uint64_t> out = values;
      for (const auto& v : all_gather(values))
        for (size_t i = 0; i < out.size(); ++i) out[i] = std::max(out[i], v[i]);
      return out;
    }

   private:
    ThreadCollectives& all_;
    int p_;
  };

  // Runs body(process, collective) on every "process" at once.
  void run(const std::function<void(int, const cs::io::Collective&)>& body) {
    std::vector<std::thread> threads;
    for (int p = 0; p < n_; ++p)
      threads.emplace_back([&, p] {
        One me(*this, p);
        body(p, me);
      });
    for (std::thread& t : threads) t.join();
  }

 private:
  int n_;
  std::barrier<> barrier_;
  std::vector<std::vector<uint64_t>> slots_;
};

// A table of rows for the given keys: `per_key` rows each, a string that needs quoting, a double
// with a unit's rounding and an int.
Table rows_of(const std::vector<uint64_t>& keys, size_t per_key) {
  Table t("t");
  auto& key = t.add_int("key");
  auto& name = t.add_string("name");
  auto& ms = t.add_double("time", "ms");
  for (uint64_t k : keys)
    for (size_t i = 0; i < per_key; ++i) {
      key.ints.push_back(static_cast<int64_t>(k));
      name.strings.push_back(k % 2 ? "a,\"b\"" : "plain");
      ms.doubles.push_back(static_cast<double>(k) / 3.0 + static_cast<double>(i));
    }
  return t;
}

std::vector<RowBlock> blocks_of(const std::vector<uint64_t>& keys, size_t per_key) {
  std::vector<RowBlock> out;
  for (uint64_t k : keys) out.push_back({k, per_key});
  return out;
}

}  // namespace

// Keys dealt over three processes out of order (a process's blocks need not be contiguous, and
// one process has none): the file is the whole table's, in key order.
TEST(CsvCollective, ThreeProcessesWriteTheWholeTablesFile) {
  TempDir dir;
  const std::string path = (fs::path(dir.path()) / "t.csv").string();
  const std::vector<std::vector<uint64_t>> keys = {{0, 4, 5}, {1, 3, 6, 9}, {}};
  ThreadCollectives procs(3);
  bool ok[3] = {};
  procs.run([&](int p, const cs::io::Collective& coll) {
    Diagnostics diag;
    const auto& mine = keys[static_cast<size_t>(p)];
    ok[p] = write_table_csv_collective(rows_of(mine, 2), blocks_of(mine, 2), path, coll, diag);
    EXPECT_FALSE(diag.has_errors()) << p;
  });
  EXPECT_TRUE(ok[0] && ok[1] && ok[2]);
  EXPECT_EQ(slurp(path), cs::io::table_to_csv(rows_of({0, 1, 3, 4, 5, 6, 9}, 2)));
  EXPECT_FALSE(fs::exists(path + ".tmp"));

  // One process, no launcher: the same bytes.
  const std::string solo = (fs::path(dir.path()) / "solo.csv").string();
  Diagnostics diag;
  ASSERT_TRUE(write_table_csv_collective(rows_of({0, 1, 3, 4, 5, 6, 9}, 2),
                                         blocks_of({0, 1, 3, 4, 5, 6, 9}, 2), solo,
                                         cs::io::solo_collective(), diag));
  EXPECT_EQ(slurp(solo), slurp(path));

  // No rows anywhere: the header alone.
  const std::string empty = (fs::path(dir.path()) / "empty.csv").string();
  ThreadCollectives two(2);
  two.run([&](int, const cs::io::Collective& coll) {
    Diagnostics d;
    EXPECT_TRUE(write_table_csv_collective(rows_of({}, 1), {}, empty, coll, d));
  });
  EXPECT_EQ(slurp(empty), "key,name,time\n");
}

// A process that cannot write the file (here: given a directory that does not exist, as a node
// without the shared file system would be) fails the file on every process: the root removes its
// .tmp, nothing appears under the name, and that process's diagnostics say why.
TEST(CsvCollective, OneProcessThatCannotWriteFailsTheFileEverywhere) {
  TempDir dir;
  const std::string path = (fs::path(dir.path()) / "t.csv").string();
  ThreadCollectives procs(2);
  bool ok[2] = {true, true};
  Diagnostics diags[2];
  procs.run([&](int p, const cs::io::Collective& coll) {
    const std::vector<uint64_t> mine = {static_cast<uint64_t>(p)};
    const std::string where = p == 0 ? path : (fs::path(dir.path()) / "nope" / "t.csv").string();
    ok[p] = write_table_csv_collective(rows_of(mine, 3), blocks_of(mine, 3), where, coll, diags[p]);
  });
  EXPECT_FALSE(ok[0]);
  EXPECT_FALSE(ok[1]);
  EXPECT_FALSE(diags[0].has_errors());
  ASSERT_TRUE(diags[1].has_errors());
  EXPECT_NE(diags[1].items()[0].what.find("cannot open file (process 1 of 2)"), std::string::npos)
      << diags[1].items()[0].to_string();
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".tmp"));
}

// Rows that do not match their blocks, or a key two processes both use: every process refuses
// the file together (nobody is left waiting), and no file is made.
TEST(CsvCollective, BadBlocksFailEveryProcessTogether) {
  TempDir dir;
  const std::string path = (fs::path(dir.path()) / "t.csv").string();
  for (int bad_case = 0; bad_case < 2; ++bad_case) {
    ThreadCollectives procs(2);
    bool ok[2] = {true, true};
    size_t errors = 0;
    std::mutex mu;
    procs.run([&](int p, const cs::io::Collective& coll) {
      Diagnostics diag;
      const std::vector<uint64_t> mine = {bad_case == 0 ? static_cast<uint64_t>(p) : 7};
      std::vector<RowBlock> blocks = blocks_of(mine, 2);
      if (bad_case == 0 && p == 1) blocks[0].rows = 5;  // the rows are 2
      ok[p] = write_table_csv_collective(rows_of(mine, 2), blocks, path, coll, diag);
      std::lock_guard<std::mutex> lock(mu);
      errors += diag.error_count();
    });
    EXPECT_FALSE(ok[0]) << bad_case;
    EXPECT_FALSE(ok[1]) << bad_case;
    EXPECT_EQ(errors, 1u) << bad_case;  // said once
    EXPECT_FALSE(fs::exists(path)) << bad_case;
    EXPECT_FALSE(fs::exists(path + ".tmp")) << bad_case;
  }
}

// The header and rows of any cut into consecutive ranges make table_to_csv's text.
TEST(CsvCollective, RowsOfAnyCutMakeTheWholeText) {
  const Table t = rows_of({0, 1, 2, 3, 4}, 3);
  for (size_t cut : {size_t{0}, size_t{1}, size_t{7}, size_t{15}}) {
    std::string text;
    cs::io::append_csv_header(text, t);
    cs::io::append_csv_rows(text, t, 0, cut);
    cs::io::append_csv_rows(text, t, cut, t.rows());
    EXPECT_EQ(text, cs::io::table_to_csv(t)) << cut;
  }
}
