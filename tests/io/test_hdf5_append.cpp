// The streamed table writer (io/hdf5/hdf5_append.h): a table appended in chunks of any size is the
// table Hdf5File::write_table writes whole (h5diff, HDF5's own comparison), with fixed-length or
// variable-length strings; rows that do not fit and an HDF5 failure in the middle of the stream
// (a full disk) give one error, no crash and no file under the final name.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "io/hdf5/hdf5_append.h"
#include "io/hdf5/hdf5_writer.h"
#include "io/table.h"
#include "support/missing_tool.h"
#include "support/test_files.h"

namespace {

namespace fs = std::filesystem;
using cs::io::Diagnostics;
using cs::io::Hdf5File;
using cs::io::Hdf5TableAppender;
using cs::io::Hdf5TableOptions;
using cs::io::Table;

// `rows` rows of every column kind: a plain and an encoded string column, ints, doubles with
// NaN and infinities. `long_at`: a row whose name is 2,000 bytes (-1: none).
Table sample(int rows, int long_at = -1) {
  Table t("communication_ops");
  auto& step = t.add_encoded_string("step");
  cs::io::DictionaryEncoder steps(step);
  auto& name = t.add_string("op");
  auto& rank = t.add_int("rank");
  auto& v = t.add_double("elapse_ms", "ms");
  for (int i = 0; i < rows; ++i) {
    steps.push("step" + std::to_string(i % 3 + 1));
    name.strings.push_back(i == long_at ? std::string(2000, 'q')
                                        : "hcom_allReduce__" + std::to_string(i * 7 % 1000));
    rank.ints.push_back(i % 16);
    v.doubles.push_back(i % 11 == 0   ? std::numeric_limits<double>::quiet_NaN()
                        : i % 13 == 0 ? -std::numeric_limits<double>::infinity()
                                      : i * 0.125);
  }
  return t;
}

// Rows [first, first + n) of `t` as a table of their own (plain strings).
Table slice(const Table& t, size_t first, size_t n) {
  Table out(t.name);
  for (const auto& c : t.columns) {
    auto& o = out.columns.emplace_back();
    o.name = c.name;
    o.unit = c.unit;
    o.type = c.type;
    for (size_t i = first; i < first + n; ++i) {
      if (c.type == cs::io::ColumnType::kString) o.strings.emplace_back(c.str(i));
      if (c.type == cs::io::ColumnType::kInt) o.ints.push_back(c.ints[i]);
      if (c.type == cs::io::ColumnType::kDouble) o.doubles.push_back(c.doubles[i]);
    }
  }
  return out;
}

// The longest value and the mean bytes of each string column.
std::vector<cs::io::StringColumnSize> widths_of(const Table& t) {
  std::vector<cs::io::StringColumnSize> w;
  for (const auto& c : t.columns) {
    if (c.type != cs::io::ColumnType::kString) continue;
    size_t m = 0;
    double sum = 0;
    for (size_t i = 0; i < c.size(); ++i) {
      m = std::max(m, c.str(i).size());
      sum += static_cast<double>(c.str(i).size());
    }
    w.push_back({m, c.size() ? sum / static_cast<double>(c.size()) : 0});
  }
  return w;
}

class Hdf5AppendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists("/usr/bin/h5diff")) CS_MISSING_TOOL("h5diff (hdf5-tools)");
  }
  // `t` written whole to `path`.
  void write_whole(const Table& t, const fs::path& path) {
    Diagnostics d;
    auto f = Hdf5File::create(path.string(), d);
    ASSERT_TRUE(f);
    ASSERT_TRUE(f->write_table(t, d));
    ASSERT_TRUE(f->finish(d));
  }
  // `t` streamed to `path` in chunks of the given sizes (the rest in one last chunk).
  void write_streamed(const Table& t, const fs::path& path, const std::vector<size_t>& sizes,
                      size_t chunk_rows, const std::vector<cs::io::StringColumnSize>& widths,
                      int filter_threads = 1) {
    Diagnostics d;
    auto f = Hdf5File::create(path.string(), d);
    ASSERT_TRUE(f);
    Hdf5TableOptions opt;
    opt.chunk_rows = chunk_rows;
    opt.filter_threads = filter_threads;
    auto a = Hdf5TableAppender::create(*f, t, widths, d, opt);
    ASSERT_TRUE(a) << d.items().at(0).to_string();
    size_t at = 0;
    for (size_t n : sizes) {
      ASSERT_TRUE(a->append(slice(t, at, n), d));
      at += n;
    }
    ASSERT_TRUE(a->append(slice(t, at, t.rows() - at), d));
    EXPECT_EQ(a->rows(), t.rows());
    ASSERT_TRUE(a->finish(d));
    ASSERT_TRUE(f->finish(d)) << d.items().at(0).to_string();
  }
  int h5diff(const fs::path& a, const fs::path& b) {
    return cs::test::run_merged("h5diff " + a.string() + " " + b.string(), diff_);
  }
  cs::test::TempDir dir{"cs_hdf5_append"};
  std::string diff_;
};

TEST_F(Hdf5AppendTest, ChunksOfAnySizeMakeTheWholeTable) {
  const Table t = sample(1000);
  const fs::path whole = dir.path() / "whole.h5";
  write_whole(t, whole);
  // Chunk boundaries across appends, appends smaller and larger than a chunk, empty appends.
  for (size_t chunk_rows : {size_t{1}, size_t{7}, size_t{64}, size_t{65536}}) {
    const fs::path streamed = dir.path() / ("streamed" + std::to_string(chunk_rows) + ".h5");
    write_streamed(t, streamed, {1, 0, 6, 100, 300, 0, 64}, chunk_rows, widths_of(t));
    EXPECT_EQ(h5diff(whole, streamed), 0) << chunk_rows << "\n" << diff_;
  }
  // Wider string columns than needed: the same values.
  const fs::path wide = dir.path() / "wide.h5";
  std::vector<cs::io::StringColumnSize> widths = widths_of(t);
  for (auto& w : widths) w.longest += 5;
  write_streamed(t, wide, {500}, 64, widths);
  EXPECT_EQ(h5diff(whole, wide), 0) << diff_;
  // h5diff sees a difference: one value changed.
  Table other = t;
  other.columns[3].doubles[999] = 1;
  const fs::path changed = dir.path() / "changed.h5";
  write_streamed(other, changed, {10}, 64, widths_of(t));
  EXPECT_EQ(h5diff(whole, changed), 1) << diff_;
}

// The chunks one append fills are filtered on several threads and stored in the order one thread
// stores them: the same file, byte for byte, whatever the thread count, with a variable-length
// column among the others and appends large enough (over 4 MiB of chunks) to be stored in parts.
TEST_F(Hdf5AppendTest, ChunksFilteredOnSeveralThreadsMakeTheSameFile) {
  // 210,000 rows: 4.4 MB of fixed-size rows; 3,000 rows with a variable-length column.
  for (const Table& t : {sample(210000), sample(3000, 1234)}) {
    const fs::path whole = dir.path() / "whole.h5";
    write_whole(t, whole);
    std::string one_thread;
    for (int threads : {1, 2, 5}) {
      const fs::path streamed = dir.path() / ("threads" + std::to_string(threads) + ".h5");
      write_streamed(t, streamed, {1, 6, 99, t.rows() - 1000}, 1024, widths_of(t), threads);
      EXPECT_EQ(h5diff(whole, streamed), 0) << threads << "\n" << diff_;
      const std::string bytes = cs::test::slurp(streamed);
      if (threads == 1) {
        one_thread = bytes;
      } else {
        EXPECT_TRUE(bytes == one_thread) << threads << " threads: the file differs";
      }
    }
  }
}

// A long value on every row (a group tuple of hundreds of ranks) stays fixed-length, as the
// whole-table writer keeps it: deflate shrinks the repeats, variable-length strings would keep
// every one's bytes uncompressed.
TEST_F(Hdf5AppendTest, LongValuesOnEveryRowStayFixedLength) {
  Table t("communication_ops");
  auto& tuple = t.add_string("group_ranks");
  for (int i = 0; i < 2000; ++i) {
    std::string key = "(" + std::to_string(i % 4);
    for (int r = 1; r < 300; ++r) key += ", " + std::to_string(r * 64 + i % 4);
    tuple.strings.push_back(key + ")");
  }
  const fs::path whole = dir.path() / "whole.h5";
  write_whole(t, whole);
  const fs::path streamed = dir.path() / "streamed.h5";
  write_streamed(t, streamed, {700}, 512, widths_of(t));
  EXPECT_EQ(h5diff(whole, streamed), 0) << diff_;
  // 2,000 values of 2 KB: 4 MB as variable-length strings.
  EXPECT_LT(fs::file_size(streamed), 400u * 1000) << "stored variable-length";
}

// One value over 1 KiB among short ones: that column is variable-length strings (the whole-table
// writer's rule), not every row padded to it.
TEST_F(Hdf5AppendTest, AValueOverOneKibIsAVariableLengthColumn) {
  const Table t = sample(300, 123);  // write_table stores "op" as variable-length strings too
  const fs::path whole = dir.path() / "whole.h5";
  write_whole(t, whole);
  const fs::path streamed = dir.path() / "streamed.h5";
  write_streamed(t, streamed, {100, 23, 1}, 16, widths_of(t));
  EXPECT_EQ(h5diff(whole, streamed), 0) << diff_;
  // Every row is not padded to 2,000 bytes.
  EXPECT_LT(fs::file_size(streamed), 100u * 1000);
}

TEST_F(Hdf5AppendTest, AValueWiderThanItsColumnFailsTheFileOnce) {
  const Table t = sample(50);
  const fs::path path = dir.path() / "narrow.h5";
  Diagnostics d;
  {
    auto f = Hdf5File::create(path.string(), d);
    ASSERT_TRUE(f);
    std::vector<cs::io::StringColumnSize> widths = widths_of(t);
    widths[1].longest = 3;  // "op" holds longer names
    auto a = Hdf5TableAppender::create(*f, t, widths, d);
    ASSERT_TRUE(a);
    EXPECT_FALSE(a->append(slice(t, 0, 10), d));
    EXPECT_FALSE(a->append(slice(t, 10, 10), d));  // no second message
    EXPECT_FALSE(a->finish(d));
    EXPECT_FALSE(f->write_table(sample(3), d));
    EXPECT_FALSE(f->finish(d));
  }
  ASSERT_EQ(d.error_count(), 1u);
  EXPECT_NE(d.items()[0].what.find("table communication_ops: rows not written: column op holds a "
                                   "value wider than its width (3 bytes)"),
            std::string::npos)
      << d.items()[0].to_string();
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));
}

// A full disk in the middle of the stream (a file-size limit, SIGXFSZ ignored so write() fails
// with EFBIG), in a child process: one error naming the file and the table, every later call
// refused quietly, nothing under the final name, no crash.
TEST_F(Hdf5AppendTest, AFullDiskMidStreamIsOneErrorAndNoFile) {
  const fs::path path = dir.path() / "full.h5";
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = {256 * 1024, 256 * 1024};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    int code = 0;
    {
      Diagnostics d;
      auto f = Hdf5File::create(path.string(), d);
      if (!f) ::_exit(20);
      Table chunk = sample(4096);
      Hdf5TableOptions opt;
      opt.chunk_rows = 1024;
      opt.deflate_level = 0;  // incompressible enough to fill the limit
      auto a = Hdf5TableAppender::create(*f, chunk, widths_of(chunk), d, opt);
      if (!a) ::_exit(21);
      int appended = 0;
      while (appended < 100 && a->append(chunk, d)) ++appended;
      if (appended == 100) code = 10;      // the limit was never hit
      if (appended == 0) code = 11;        // not in the middle of the stream
      if (a->append(chunk, d)) code = 12;  // refused after the failure
      if (a->finish(d)) code = 13;
      if (f->finish(d)) code = 14;
      if (d.error_count() != 1)
        code = 15;
      else if (d.items()[0].what.find("table communication_ops: cannot ") == std::string::npos ||
               d.items()[0].file != path.string())
        code = 16;
    }
    ::_exit(code);
  }
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFEXITED(st)) << "killed by signal " << (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  EXPECT_EQ(WEXITSTATUS(st), 0) << "10: no failure, 11: failed at once, 12-14: a call accepted "
                                   "after it, 15-16: not one clear error";
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));
}

}  // namespace
