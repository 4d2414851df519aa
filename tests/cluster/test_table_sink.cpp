// TableSink: tables put from several threads at once are all written (CSV files and HDF5
// datasets), only the asked ones are kept, and write errors come out in table-name order.
#include "cluster/table_sink.h"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace fs = std::filesystem;
using cs::cluster::TableSink;

namespace {

cs::io::Table numbers(const std::string& name, int rows) {
  cs::io::Table t(name);
  auto& c = t.add_int("value", "us");
  for (int i = 0; i < rows; ++i) c.ints.push_back(i);
  return t;
}

size_t lines_of(const fs::path& p) {
  std::ifstream in(p);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("cs_table_sink_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST(TableSink, WritesEveryTableFromManyThreadsAndKeepsOnlyTheAskedOnes) {
  // With one thread the HDF5 datasets are written by put(); with more, by the sink's writer
  // thread, in the background until finish().
  for (const int sink_threads : {1, 3}) {
    SCOPED_TRACE(sink_threads);
    const fs::path dir = fresh_dir("threads" + std::to_string(sink_threads));
    cs::io::Diagnostics h5_diag;
    auto h5 = cs::io::Hdf5File::create((dir / "out.h5").string(), h5_diag);
    ASSERT_TRUE(h5) << h5_diag.items().front().to_string();
    constexpr int kTables = 8, kRows = 1000;
    {
      TableSink sink(dir.string(), true, &*h5, {"t3", "t6"}, sink_threads);
      std::vector<std::thread> threads;
      for (int i = 0; i < kTables; ++i)
        threads.emplace_back([&, i] { sink.put(numbers("t" + std::to_string(i), kRows)); });
      for (auto& t : threads) t.join();
      sink.finish();
      EXPECT_EQ(sink.count(), static_cast<size_t>(kTables));
      EXPECT_TRUE(sink.diagnostics().empty());
      ASSERT_NE(sink.kept("t3"), nullptr);
      EXPECT_EQ(sink.kept("t3")->rows(), static_cast<size_t>(kRows));
      ASSERT_NE(sink.kept("t6"), nullptr);
      EXPECT_EQ(sink.kept("t1"), nullptr);   // written, then freed
      EXPECT_EQ(sink.kept("t99"), nullptr);  // never put
    }
    ASSERT_TRUE(h5->finish(h5_diag));
    for (int i = 0; i < kTables; ++i) {
      const std::string name = "t" + std::to_string(i);
      EXPECT_EQ(lines_of(dir / (name + ".csv")), static_cast<size_t>(kRows + 1)) << name;
    }
    const hid_t f = H5Fopen((dir / "out.h5").string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    for (int i = 0; i < kTables; ++i) {
      const std::string name = "/t" + std::to_string(i);
      EXPECT_GT(H5Lexists(f, name.c_str(), H5P_DEFAULT), 0) << name;
    }
    H5Fclose(f);
    fs::remove_all(dir);
  }
}

TEST(TableSink, WithoutWritersItOnlyKeeps) {
  TableSink sink("/nonexistent/never/written", false, nullptr, {"a"});
  sink.put(numbers("a", 3));
  sink.put(numbers("b", 3));
  EXPECT_EQ(sink.count(), 2u);
  EXPECT_TRUE(sink.diagnostics().empty());
  ASSERT_NE(sink.kept("a"), nullptr);
  EXPECT_EQ(sink.kept("b"), nullptr);
}

// A stream no file takes (no CSV, no HDF5: --format json) says so, and rows skipped unbuilt
// still count for the closing summary; one with a CSV file takes them.
TEST(TableSink, AStreamSaysWhetherAnyFileTakesItsRows) {
  cs::io::Table schema("communication_ops");
  schema.add_int("rank");
  {
    TableSink sink("/nonexistent/never/written", false, nullptr, {});
    auto s = sink.open_stream(schema, {});
    EXPECT_FALSE(s->writes());
    s->count_rows(5);
    s->count_rows(2);
    s->close();
    EXPECT_EQ(sink.op_table_rows().at("communication_ops"), 7u);
  }
  const fs::path dir = fs::temp_directory_path() / ("cs_sink_writes_" + std::to_string(getpid()));
  fs::create_directories(dir);
  {
    TableSink sink(dir.string(), true, nullptr, {});
    sink.set_op_tables(cs::cluster::OpTables::kCsv);
    auto s = sink.open_stream(schema, {});
    EXPECT_TRUE(s->writes());
    s->close();
  }
  fs::remove_all(dir);
}

TEST(TableSink, WriteErrorsComeInTableNameOrder) {
  TableSink sink("/nonexistent/clusterscope/out", true, nullptr, {});
  sink.put(numbers("zeta", 2));
  sink.put(numbers("alpha", 2));
  const auto d = sink.diagnostics();
  ASSERT_EQ(d.items().size(), 2u);
  EXPECT_TRUE(d.has_errors());
  EXPECT_NE(d.items()[0].to_string().find("alpha.csv"), std::string::npos)
      << d.items()[0].to_string();
  EXPECT_NE(d.items()[1].to_string().find("zeta.csv"), std::string::npos)
      << d.items()[1].to_string();
}

namespace {

// `rows` rows of a per-op-like table: an encoded string column, ints and doubles with a unit.
cs::io::Table ops_rows(int first, int rows) {
  cs::io::Table t("communication_ops");
  cs::io::DictionaryEncoder step(t.add_encoded_string("step"));
  auto& rank = t.add_int("rank");
  auto& v = t.add_double("elapse_ms", "ms");
  for (int i = first; i < first + rows; ++i) {
    step.push("step" + std::to_string(i % 4 + 1));
    rank.ints.push_back(i % 16);
    v.doubles.push_back(i * 0.001);
  }
  return t;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

// A table streamed in chunks (open_stream) writes the same CSV bytes (plain and gzipped) and the
// same HDF5 datasets (h5diff) as the whole table put at once, with or without the writer thread,
// however small the HDF5 chunks; the writer thread is never more than kMaxQueued chunks behind.
TEST(TableSink, AStreamWritesWhatPutWrites) {
  ASSERT_TRUE(fs::exists("/usr/bin/h5diff"));
  constexpr int kRows = 5000;
  for (const auto where : {cs::cluster::OpTables::kCsv, cs::cluster::OpTables::kCsvGz}) {
    for (const int sink_threads : {1, 3}) {
      SCOPED_TRACE(sink_threads);
      const fs::path whole = fresh_dir("whole"), streamed = fresh_dir("streamed");
      for (const fs::path& dir : {whole, streamed}) {
        cs::io::Diagnostics d;
        auto h5 = cs::io::Hdf5File::create((dir / "out.h5").string(), d);
        ASSERT_TRUE(h5);
        {
          TableSink sink(dir.string(), true, &*h5, {}, sink_threads);
          sink.set_op_tables(where);
          if (dir == whole) {
            sink.put(ops_rows(0, kRows));
          } else {
            sink.set_stream_chunk_rows(7);
            auto s = sink.open_stream(ops_rows(0, 0), {{5, 5.0}});
            for (int first = 0; first < kRows;) {
              const int n = std::min(kRows - first, first % 3 == 0 ? 1 : 777);
              s->append(ops_rows(first, n));
              first += n;
            }
            s->close();
          }
          sink.finish();
          EXPECT_TRUE(sink.diagnostics().empty());
          EXPECT_EQ(sink.op_table_rows().at("communication_ops"), static_cast<size_t>(kRows));
        }
        ASSERT_TRUE(h5->finish(d));
      }
      const std::string csv = where == cs::cluster::OpTables::kCsv ? "communication_ops.csv"
                                                                   : "communication_ops.csv.gz";
      ASSERT_TRUE(fs::exists(whole / csv));
      EXPECT_EQ(slurp(whole / csv), slurp(streamed / csv));
      EXPECT_EQ(std::system(
                    ("h5diff " + (whole / "out.h5").string() + " " + (streamed / "out.h5").string())
                        .c_str()),
                0);
      fs::remove_all(whole);
      fs::remove_all(streamed);
    }
  }
}

// An HDF5 failure in the middle of a stream (here a value wider than the width given up front) is
// one error naming the file and the table, on the writer thread or not; the CSV file is still
// written whole, later chunks are refused quietly, nothing crashes or hangs.
TEST(TableSink, AFailureMidStreamIsOneErrorAndTheCsvIsWritten) {
  for (const int sink_threads : {1, 3}) {
    SCOPED_TRACE(sink_threads);
    const fs::path dir = fresh_dir("midstream" + std::to_string(sink_threads));
    cs::io::Diagnostics d;
    auto h5 = cs::io::Hdf5File::create((dir / "out.h5").string(), d);
    ASSERT_TRUE(h5);
    {
      TableSink sink(dir.string(), true, &*h5, {}, sink_threads);
      sink.set_op_tables(cs::cluster::OpTables::kCsv);
      auto s = sink.open_stream(ops_rows(0, 0), {{5, 5.0}});
      s->append(ops_rows(0, 100));  // step1..step4: 5 bytes
      s->append(ops_rows(100, 100));
      cs::io::Table wide = ops_rows(200, 10);
      wide.columns[0].dict[0] = "step1000";  // 8 bytes: wider than 5
      s->append(std::move(wide));
      s->append(ops_rows(210, 100));
      s->close();
      sink.put(numbers("after", 10));  // a later table: not written to the failed file
      sink.finish();
      const cs::io::Diagnostics errors = sink.diagnostics();
      ASSERT_EQ(errors.error_count(), 1u);
      EXPECT_EQ(errors.items()[0].file, (dir / "out.h5").string());
      EXPECT_NE(
          errors.items()[0].what.find("table communication_ops: rows not written: column step "
                                      "holds a value wider than its width (5 bytes)"),
          std::string::npos)
          << errors.items()[0].to_string();
    }
    EXPECT_TRUE(h5->failed());
    EXPECT_FALSE(h5->finish(d));
    EXPECT_FALSE(fs::exists(dir / "out.h5"));
    EXPECT_EQ(lines_of(dir / "communication_ops.csv"), 311u);  // header + every row
    EXPECT_EQ(lines_of(dir / "after.csv"), 11u);
    fs::remove_all(dir);
  }
}
