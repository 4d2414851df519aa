// HDF5 writer: files are checked by a real client, h5py (tests/data/h5/check_table.py), and by
// h5dump when installed; plus the error paths (missing directory, full disk, bad tables,
// abandoned writers) and the RAII handles.

#include "io/hdf5/hdf5_writer.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <type_traits>

#include "io/hdf5/hdf5_error.h"
#include "io/hdf5/hdf5_meta.h"
#include "io/hdf5/hdf5_tables.h"
#include "io/hdf5_test_util.h"
#include "io/json/json_writer.h"
#include "support/missing_tool.h"
#include "version.h"

namespace fs = std::filesystem;
using cs::io::ColumnType;
using cs::io::Diagnostics;
using cs::io::Hdf5File;
using cs::io::Table;

using namespace cs::test::hdf5;  // NOLINT: the helpers of hdf5_test_util.h

TEST(Hdf5Handle, ClosesExactlyOnceAndMoves) {
  static_assert(!std::is_copy_constructible_v<cs::io::Hdf5Space>);
  static_assert(!std::is_copy_assignable_v<cs::io::Hdf5Space>);
  static_assert(std::is_nothrow_move_constructible_v<cs::io::Hdf5Space>);
  hid_t id;
  {
    cs::io::Hdf5Space a(H5Screate(H5S_SCALAR));
    ASSERT_TRUE(a);
    id = a.get();
    cs::io::Hdf5Space b(std::move(a));
    EXPECT_FALSE(a.valid());
    EXPECT_EQ(b.get(), id);
    EXPECT_GT(H5Iis_valid(id), 0);
    cs::io::Hdf5Space c;
    c = std::move(b);
    EXPECT_GT(H5Iis_valid(id), 0);
    EXPECT_EQ(c.close(), 0);
    EXPECT_LE(H5Iis_valid(id), 0);
    EXPECT_EQ(c.close(), 0);  // already empty: no second H5Sclose
  }
  {
    cs::io::Hdf5Space d(H5Screate(H5S_SCALAR));
    id = d.get();
  }
  EXPECT_LE(H5Iis_valid(id), 0);
  cs::io::hdf5_silence_errors();
  cs::io::Hdf5Space failed(H5Screate(H5S_NO_CLASS));  // a valid enumerator HDF5 refuses
  EXPECT_FALSE(failed);
  EXPECT_NE(cs::io::hdf5_error_text(), "");
}

TEST(Hdf5Meta, Iso8601) {
  EXPECT_EQ(cs::io::utc_iso8601(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(cs::io::utc_iso8601(1736413971), "2025-01-09T09:12:51Z");
}

TEST_F(Hdf5Writer, AllColumnTypesEmptyTablesAndMetaReadByH5py) {
  SKIP_WITHOUT_H5PY();
  const fs::path h5 = dir.path() / "cluster_analysis.h5";
  Diagnostics diag;
  auto file = Hdf5File::create(h5.string(), diag);
  ASSERT_TRUE(file) << diag.items().front().to_string();
  Table mixed = mixed_table();
  Table empty = empty_table();
  Table no_columns("no_columns");
  ASSERT_TRUE(file->write_table(mixed, diag));
  ASSERT_TRUE(file->write_table(empty, diag));
  ASSERT_TRUE(file->write_table(no_columns, diag));
  cs::io::Hdf5Meta meta;
  meta.input_path = "/data/job \xe4\xb8\xad";
  meta.ranks = 16;
  meta.processes = 4;
  meta.extra = {{"mode", std::string("all")}, {"threshold", 0.25}};
  ASSERT_TRUE(cs::io::write_hdf5_meta(*file, meta, diag));
  EXPECT_TRUE(fs::exists(h5.string() + ".tmp"));
  EXPECT_FALSE(fs::exists(h5));
  ASSERT_TRUE(file->finish(diag));
  EXPECT_TRUE(diag.empty());
  EXPECT_TRUE(fs::exists(h5));
  EXPECT_FALSE(fs::exists(h5.string() + ".tmp"));

  Expectation e;
  e.table(mixed);
  e.table(empty);
  e.table(no_columns);
  auto& w = e.rest();
  w.key("meta");
  w.begin_object();
  w.key("tool");
  w.value("clusterscope");
  w.key("tool_version");
  w.value(CLUSTERSCOPE_VERSION);
  w.key("input_path");
  w.value(meta.input_path);
  w.key("ranks");
  w.value(16);
  w.key("processes");
  w.value(4);
  w.end_object();
  w.key("meta_iso8601");
  w.begin_array();
  w.value("created");
  w.end_array();
  expect_h5py_ok(h5, e.save(dir.path() / "expected.json"), "ok 3 28\n");

  // The extra meta attributes, in order, after the standard ones.
  std::string out;
  EXPECT_EQ(
      run_merged("/usr/bin/python3 -c \"import h5py; a = h5py.File('" + h5.string() +
                     "')['meta'].attrs; print(list(a.keys())[6:], a['mode'], a['threshold'])\"",
                 out),
      0)
      << out;
  EXPECT_EQ(out, "['mode', 'threshold'] all 0.25\n");
}

TEST_F(Hdf5Writer, EncodedStringColumnsReadLikePlainOnes) {
  SKIP_WITHOUT_H5PY();
  ASSERT_TRUE(open("encoded.h5"));
  Table t("encoded");
  cs::io::DictionaryEncoder name(t.add_encoded_string("name"));
  auto& rank = t.add_int("rank");
  const std::vector<std::string> values = {"step1", "step1", "a,b", "\xe4\xb8\xad",
                                           "step1", "",      "a,b"};
  for (size_t i = 0; i < values.size(); ++i) {
    name.push(values[i]);
    rank.ints.push_back(static_cast<int64_t>(i));
  }
  ASSERT_EQ(t.columns.front().dict.size(), 4u);  // each distinct value once
  ASSERT_TRUE(file->write_table(t, diag));
  ASSERT_TRUE(file->finish(diag));
  Expectation e;
  e.table(t);
  expect_h5py_ok(h5, e.save(dir.path() / "expected.json"), "ok 1 14\n");
}

TEST_F(Hdf5Writer, H5dumpReadsTheHeader) {
  std::string probe;
  if (run_merged("command -v h5dump", probe) != 0) CS_MISSING_TOOL("h5dump (hdf5-tools)");
  ASSERT_TRUE(open("t.h5"));
  ASSERT_TRUE(file->write_table(mixed_table(), diag));
  ASSERT_TRUE(file->write_table(empty_table(), diag));
  ASSERT_TRUE(cs::io::write_hdf5_meta(*file, cs::io::Hdf5Meta{}, diag));
  ASSERT_TRUE(file->finish(diag));
  std::string out;
  ASSERT_EQ(run_merged("h5dump -H " + h5.string(), out), 0) << out;
  for (const char* want :
       {"GROUP \"mixed\"", "DATASET \"time_us\"", "H5T_IEEE_F64LE", "H5T_STD_I64LE",
        "CSET H5T_CSET_UTF8", "STRSIZE 11", "STRPAD H5T_STR_NULLPAD", "ATTRIBUTE \"units\"",
        "GROUP \"empty_rows\"", "SIMPLE { ( 0 ) / ( H5S_UNLIMITED ) }", "GROUP \"meta\"",
        "ATTRIBUTE \"created\""})
    EXPECT_NE(out.find(want), std::string::npos) << want << " not in:\n" << out;
}

TEST_F(Hdf5Writer, ManyRowsSpanSeveralChunks) {
  SKIP_WITHOUT_H5PY();
  Table t("operators_topn");
  auto& key = t.add_string("key");
  auto& count = t.add_int("count");
  auto& total = t.add_double("total_us", "us");
  for (int i = 0; i < 150000; ++i) {
    key.strings.push_back("aclnnMatmul_" + std::to_string(i % 977));
    count.ints.push_back(i);
    total.doubles.push_back(i * 0.37);
  }
  const fs::path h5 = dir.path() / "big.h5";
  Diagnostics diag;
  auto file = Hdf5File::create(h5.string(), diag);
  ASSERT_TRUE(file);
  ASSERT_TRUE(file->write_table(t, diag));
  ASSERT_TRUE(file->finish(diag));
  Expectation e;
  e.table(t);
  expect_h5py_ok(h5, e.save(dir.path() / "expected.json"), "ok 1 450000\n");
  // Compression works: far smaller than the raw 150000 * (8 + 8) bytes + strings.
  EXPECT_LT(fs::file_size(h5), 150000u * 16u);
}

TEST_F(Hdf5Writer, SetAttributeCreatesGroupsAndReplaces) {
  SKIP_WITHOUT_H5PY();
  ASSERT_TRUE(open("a.h5"));
  ASSERT_TRUE(file->write_table(mixed_table(), diag));
  ASSERT_TRUE(file->set_attribute("/", "format", std::string("clusterscope"), diag));
  ASSERT_TRUE(file->set_attribute("/a/b/c", "x", int64_t{1}, diag));
  ASSERT_TRUE(file->set_attribute("/a/b/c", "x", std::string("replaced"), diag));
  ASSERT_TRUE(file->set_attribute("mixed/rank", "units", std::string("rank id"), diag));
  ASSERT_TRUE(file->set_attribute("/mixed", "note", 2.5, diag));
  ASSERT_TRUE(file->finish(diag));
  EXPECT_TRUE(diag.empty());
  std::string out;
  ASSERT_EQ(run_merged("/usr/bin/python3 -c \"import h5py; f = h5py.File('" + h5.string() +
                           "'); print(f.attrs['format'], f['a/b/c'].attrs['x'], "
                           "f['mixed/rank'].attrs['units'], f['mixed'].attrs['note'])\"",
                       out),
            0)
      << out;
  EXPECT_EQ(out, "clusterscope replaced rank id 2.5\n");
}

TEST_F(Hdf5Writer, WriteTablesInOneCall) {
  SKIP_WITHOUT_H5PY();
  const fs::path h5 = dir.path() / "cluster_analysis.h5";
  Table mixed = mixed_table();
  Table empty = empty_table();
  Table ragged("ragged");
  ragged.add_int("a").ints = {1, 2};
  ragged.add_int("b").ints = {1};
  cs::io::Hdf5Meta meta;
  meta.tool_version = "9.9.9";
  meta.created = "2025-01-09T09:12:51Z";
  meta.ranks = 2;
  Diagnostics diag;
  // The ragged table is reported and left out; the others are published.
  EXPECT_FALSE(cs::io::write_tables_hdf5(h5.string(), {&mixed, &ragged, &empty}, meta, diag));
  EXPECT_EQ(diag.error_count(), 1u);
  ASSERT_TRUE(fs::exists(h5));
  Expectation e;
  e.table(mixed);
  e.table(empty);
  auto& w = e.rest();
  w.key("absent");
  w.begin_array();
  w.value("ragged");
  w.end_array();
  w.key("meta");
  w.begin_object();
  w.key("tool");
  w.value("clusterscope");
  w.key("tool_version");
  w.value("9.9.9");
  w.key("input_path");
  w.value("");
  w.key("ranks");
  w.value(2);
  w.key("processes");
  w.value(1);
  w.key("created");
  w.value("2025-01-09T09:12:51Z");
  w.end_object();
  expect_h5py_ok(h5, e.save(dir.path() / "expected.json"), "ok 2 28\n");

  // An unwritable destination: false, and nothing under the final name.
  Diagnostics diag2;
  const fs::path bad = dir.path() / "missing" / "x.h5";
  EXPECT_FALSE(cs::io::write_tables_hdf5(bad.string(), {&mixed}, meta, diag2));
  EXPECT_EQ(diag2.error_count(), 1u);
  EXPECT_FALSE(fs::exists(bad));
}

TEST_F(Hdf5Writer, ChunksFilteredBeforehandMakeTheSameFile) {
  // filter_table_chunks shuffles and deflates each chunk as HDF5's own filters do, so storing
  // its chunks gives the very file HDF5 writes itself: every column type, plain and encoded
  // strings, a partial last chunk, small chunks, an empty table; on 1 and 3 threads. (No
  // object of the file records a time, the root group included: the files compare as bytes.)
  Table t("mixed_chunks");
  auto& key = t.add_string("key");
  cs::io::DictionaryEncoder group(t.add_encoded_string("group"));
  auto& count = t.add_int("count");
  auto& total = t.add_double("total_us", "us");
  for (int i = 0; i < 150001; ++i) {
    key.strings.push_back(i % 7 == 0 ? "" : "aclnnMatmul_\xe4\xb8\xad" + std::to_string(i % 977));
    group.push("group_" + std::to_string(i % 13));
    count.ints.push_back(static_cast<int64_t>(i) * 1000003 - 7);
    total.doubles.push_back(i % 11 == 0 ? std::numeric_limits<double>::quiet_NaN() : i * 0.37);
  }
  Table empty("no_rows");
  empty.add_string("s");
  empty.add_double("d");
  for (const size_t chunk_rows : {size_t{64} * 1024, size_t{1000}}) {
    cs::io::Hdf5TableOptions opt;
    opt.chunk_rows = chunk_rows;
    std::string files[3];
    for (int variant = 0; variant < 3; ++variant) {  // HDF5 filters, then 1 and 3 threads
      const fs::path h5 = dir.path() / ("v" + std::to_string(variant) + ".h5");
      Diagnostics d;
      auto file = Hdf5File::create(h5.string(), d);
      ASSERT_TRUE(file);
      for (const Table* table : {&t, &empty}) {
        if (variant == 0) {
          ASSERT_TRUE(file->write_table(*table, d, opt));
        } else {
          const cs::io::Hdf5Chunks chunks = cs::io::filter_table_chunks(
              *table, opt.chunk_rows, opt.shuffle, opt.deflate_level, variant == 1 ? 1 : 3);
          ASSERT_TRUE(file->write_table(*table, d, opt, &chunks));
        }
      }
      ASSERT_TRUE(file->finish(d));
      files[variant] = cs::test::slurp(h5);
    }
    EXPECT_GT(files[0].size(), 100000u);
    EXPECT_TRUE(files[1] == files[0]) << "1 thread, chunks of " << chunk_rows;
    EXPECT_TRUE(files[2] == files[0]) << "3 threads, chunks of " << chunk_rows;
  }
}
