// HDF5 writer: files are checked by a real client, h5py (tests/data/h5/check_table.py), and by
// h5dump when installed; plus the error paths (missing directory, full disk, bad tables,
// abandoned writers) and the RAII handles.

#include "io/hdf5_writer.h"

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

#include "io/hdf5_error.h"
#include "io/hdf5_meta.h"
#include "io/hdf5_tables.h"
#include "io/json_writer.h"
#include "version.h"

namespace fs = std::filesystem;
using cs::io::ColumnType;
using cs::io::Diagnostics;
using cs::io::Hdf5File;
using cs::io::Table;

namespace {

const std::string kChecker = std::string(CS_TEST_DATA) + "/h5/check_table.py";

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/cs_hdf5_writer_XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// Runs a shell command, returns its exit status and fills `out` with stdout+stderr.
int run(const std::string& cmd, std::string& out) {
  out.clear();
  std::FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = ::pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// "" when /usr/bin/python3 can import h5py, else why not.
std::string h5py_missing() {
  static const std::string why = [] {
    std::string out;
    return run("/usr/bin/python3 -c 'import h5py, numpy'", out) == 0 ? std::string() : out;
  }();
  return why;
}

#define SKIP_WITHOUT_H5PY()                                                          \
  if (!h5py_missing().empty())                                                       \
  GTEST_SKIP() << "/usr/bin/python3 cannot import h5py (apt install python3-h5py): " \
               << h5py_missing()

Table mixed_table() {
  Table t("mixed");
  t.add_string("name").strings = {
      "plain", "a,b", "say \"hi\"", "line1\nline2", "\xe4\xb8\xad\xe6\x96\x87", "", "tab\there"};
  t.add_int("rank").ints = {
      0, -1, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(), 42, 7, 3};
  t.add_double("time_us", "us").doubles = {0.1 + 0.2,
                                           std::numeric_limits<double>::quiet_NaN(),
                                           std::numeric_limits<double>::infinity(),
                                           -std::numeric_limits<double>::infinity(),
                                           -0.0,
                                           std::numeric_limits<double>::denorm_min(),
                                           1e300};
  // Column names out of alphabetical order: the file must keep the table's order.
  t.add_double("bandwidth_gbps", "GB/s").doubles = {1, 2, 3, 4, 5, 6, 7};
  return t;
}

Table empty_table() {
  Table t("empty_rows");
  t.add_string("key");
  t.add_int("count");
  t.add_double("value", "ms");
  return t;
}

// Expectation JSON for check_table.py: tables with their values (doubles via Python's repr,
// so they read back exactly), the chunk size, the /meta attributes.
class Expectation {
 public:
  Expectation() : w_(&text_) {
    w_.begin_object();
    w_.key("tables");
    w_.begin_array();
  }
  void table(const Table& t, int64_t chunk_rows = 65536) {
    w_.begin_object();
    w_.key("name");
    w_.value(t.name);
    w_.key("rows");
    w_.value(static_cast<int64_t>(t.rows()));
    w_.key("chunk_rows");
    w_.value(chunk_rows);
    w_.key("columns");
    w_.begin_array();
    for (const auto& c : t.columns) {
      w_.begin_object();
      w_.key("name");
      w_.value(c.name);
      w_.key("unit");
      w_.value(c.unit);
      w_.key("type");
      w_.value(c.type == ColumnType::kString ? "string"
               : c.type == ColumnType::kInt  ? "int"
                                             : "double");
      w_.key("values");
      w_.begin_array();
      for (size_t i = 0; c.type == ColumnType::kString && i < c.size(); ++i) w_.value(c.str(i));
      for (int64_t i : c.ints) w_.raw_value(std::to_string(i));  // exact int64
      for (double d : c.doubles) w_.value(d);
      w_.end_array();
      w_.end_object();
    }
    w_.end_array();
    w_.end_object();
  }
  // Ends the table list; then the caller may add top-level keys through writer().
  cs::io::JsonWriter& rest() {
    if (!tables_closed_) w_.end_array();
    tables_closed_ = true;
    return w_;
  }
  std::string save(const fs::path& p) {
    rest();
    w_.end_object();
    w_.flush();
    std::ofstream(p) << text_;
    return p.string();
  }

 private:
  std::string text_;
  cs::io::JsonWriter w_;
  bool tables_closed_ = false;
};

// Runs the h5py checker; returns its output, and fails the test when it does not say "ok".
void expect_h5py_ok(const fs::path& h5, const std::string& expected, const std::string& want) {
  std::string out;
  int rc = run("/usr/bin/python3 " + kChecker + " " + h5.string() + " " + expected, out);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out, want);
}

}  // namespace

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
  cs::io::Hdf5Space failed(H5Screate(static_cast<H5S_class_t>(99)));
  EXPECT_FALSE(failed);
  EXPECT_NE(cs::io::hdf5_error_text(), "");
}

TEST(Hdf5Meta, Iso8601) {
  EXPECT_EQ(cs::io::utc_iso8601(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(cs::io::utc_iso8601(1736413971), "2025-01-09T09:12:51Z");
}

TEST(Hdf5Writer, AllColumnTypesEmptyTablesAndMetaReadByH5py) {
  SKIP_WITHOUT_H5PY();
  TempDir dir;
  const fs::path h5 = dir.path / "cluster_analysis.h5";
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
  expect_h5py_ok(h5, e.save(dir.path / "expected.json"), "ok 3 28\n");

  // The extra meta attributes, in order, after the standard ones.
  std::string out;
  EXPECT_EQ(run("/usr/bin/python3 -c \"import h5py; a = h5py.File('" + h5.string() +
                    "')['meta'].attrs; print(list(a.keys())[6:], a['mode'], a['threshold'])\"",
                out),
            0)
      << out;
  EXPECT_EQ(out, "['mode', 'threshold'] all 0.25\n");
}

TEST(Hdf5Writer, EncodedStringColumnsReadLikePlainOnes) {
  SKIP_WITHOUT_H5PY();
  TempDir dir;
  const fs::path h5 = dir.path / "encoded.h5";
  Diagnostics diag;
  auto file = Hdf5File::create(h5.string(), diag);
  ASSERT_TRUE(file);
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
  expect_h5py_ok(h5, e.save(dir.path / "expected.json"), "ok 1 14\n");
}

TEST(Hdf5Writer, H5dumpReadsTheHeader) {
  std::string probe;
  if (run("command -v h5dump", probe) != 0) GTEST_SKIP() << "h5dump not installed (hdf5-tools)";
  TempDir dir;
  const fs::path h5 = dir.path / "t.h5";
  Diagnostics diag;
  auto file = Hdf5File::create(h5.string(), diag);
  ASSERT_TRUE(file);
  ASSERT_TRUE(file->write_table(mixed_table(), diag));
  ASSERT_TRUE(file->write_table(empty_table(), diag));
  ASSERT_TRUE(cs::io::write_hdf5_meta(*file, cs::io::Hdf5Meta{}, diag));
  ASSERT_TRUE(file->finish(diag));
  std::string out;
  ASSERT_EQ(run("h5dump -H " + h5.string(), out), 0) << out;
  for (const char* want :
       {"GROUP \"mixed\"", "DATASET \"time_us\"", "H5T_IEEE_F64LE", "H5T_STD_I64LE",
        "CSET H5T_CSET_UTF8", "STRSIZE 11", "STRPAD H5T_STR_NULLPAD", "ATTRIBUTE \"units\"",
        "GROUP \"empty_rows\"", "SIMPLE { ( 0 ) / ( H5S_UNLIMITED ) }", "GROUP \"meta\"",
        "ATTRIBUTE \"created\""})
    EXPECT_NE(out.find(want), std::string::npos) << want << " not in:\n" << out;
}

TEST(Hdf5Writer, ManyRowsSpanSeveralChunks) {
  SKIP_WITHOUT_H5PY();
  TempDir dir;
  Table t("operators_topn");
  auto& key = t.add_string("key");
  auto& count = t.add_int("count");
  auto& total = t.add_double("total_us", "us");
  for (int i = 0; i < 150000; ++i) {
    key.strings.push_back("aclnnMatmul_" + std::to_string(i % 977));
    count.ints.push_back(i);
    total.doubles.push_back(i * 0.37);
  }
  const fs::path h5 = dir.path / "big.h5";
  Diagnostics diag;
  auto file = Hdf5File::create(h5.string(), diag);
  ASSERT_TRUE(file);
  ASSERT_TRUE(file->write_table(t, diag));
  ASSERT_TRUE(file->finish(diag));
  Expectation e;
  e.table(t);
  expect_h5py_ok(h5, e.save(dir.path / "expected.json"), "ok 1 450000\n");
  // Compression works: far smaller than the raw 150000 * (8 + 8) bytes + strings.
  EXPECT_LT(fs::file_size(h5), 150000u * 16u);
}

TEST(Hdf5Writer, SetAttributeCreatesGroupsAndReplaces) {
  SKIP_WITHOUT_H5PY();
  TempDir dir;
  const fs::path h5 = dir.path / "a.h5";
  Diagnostics diag;
  auto file = Hdf5File::create(h5.string(), diag);
  ASSERT_TRUE(file);
  ASSERT_TRUE(file->write_table(mixed_table(), diag));
  ASSERT_TRUE(file->set_attribute("/", "format", std::string("clusterscope"), diag));
  ASSERT_TRUE(file->set_attribute("/a/b/c", "x", int64_t{1}, diag));
  ASSERT_TRUE(file->set_attribute("/a/b/c", "x", std::string("replaced"), diag));
  ASSERT_TRUE(file->set_attribute("mixed/rank", "units", std::string("rank id"), diag));
  ASSERT_TRUE(file->set_attribute("/mixed", "note", 2.5, diag));
  ASSERT_TRUE(file->finish(diag));
  EXPECT_TRUE(diag.empty());
  std::string out;
  ASSERT_EQ(run("/usr/bin/python3 -c \"import h5py; f = h5py.File('" + h5.string() +
                    "'); print(f.attrs['format'], f['a/b/c'].attrs['x'], "
                    "f['mixed/rank'].attrs['units'], f['mixed'].attrs['note'])\"",
                out),
            0)
      << out;
  EXPECT_EQ(out, "clusterscope replaced rank id 2.5\n");
}

TEST(Hdf5Writer, MissingDirectoryIsADiagnostic) {
  TempDir dir;
  const std::string h5 = (dir.path / "no_such_dir" / "x.h5").string();
  Diagnostics diag;
  EXPECT_FALSE(Hdf5File::create(h5, diag));
  ASSERT_EQ(diag.error_count(), 1u);
  const auto& d = diag.items().front();
  EXPECT_EQ(d.file, h5);
  EXPECT_NE(d.what.find("cannot create HDF5 file"), std::string::npos) << d.what;
  EXPECT_NE(d.what.find("No such file or directory"), std::string::npos) << d.what;
  EXPECT_NE(d.hint.find("does not exist"), std::string::npos) << d.hint;
}

TEST(Hdf5Writer, AbandonedWriterLeavesNoFile) {
  TempDir dir;
  const fs::path h5 = dir.path / "x.h5";
  {
    std::ofstream old(h5);
    old << "previous";
  }
  Diagnostics diag;
  {
    auto file = Hdf5File::create(h5.string(), diag);
    ASSERT_TRUE(file);
    ASSERT_TRUE(file->write_table(mixed_table(), diag));
    EXPECT_TRUE(fs::exists(h5.string() + ".tmp"));
  }  // destroyed without finish()
  EXPECT_FALSE(fs::exists(h5.string() + ".tmp"));
  std::ifstream in(h5);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "previous");
  EXPECT_TRUE(diag.empty());
}

TEST(Hdf5Writer, MovedWriterFinishesOnce) {
  TempDir dir;
  const fs::path h5 = dir.path / "m.h5";
  Diagnostics diag;
  auto file = Hdf5File::create(h5.string(), diag);
  ASSERT_TRUE(file);
  {
    Hdf5File moved(std::move(*file));
    ASSERT_TRUE(moved.write_table(empty_table(), diag));
    ASSERT_TRUE(moved.finish(diag));
    EXPECT_FALSE(moved.finish(diag));  // twice is a bug, reported
    EXPECT_EQ(diag.error_count(), 1u);
  }
  file.reset();  // the moved-from object must not delete anything
  EXPECT_TRUE(fs::exists(h5));
  std::string out;
  if (run("command -v h5dump", out) == 0) {
    EXPECT_EQ(run("h5dump -H " + h5.string(), out), 0) << out;
  }
}

TEST(Hdf5Writer, BadTablesAreDiagnosticsAndTheRestIsWritten) {
  SKIP_WITHOUT_H5PY();
  TempDir dir;
  const fs::path h5 = dir.path / "bad.h5";
  Diagnostics diag;
  auto file = Hdf5File::create(h5.string(), diag);
  ASSERT_TRUE(file);

  Table unnamed;
  unnamed.add_int("a").ints = {1};
  Table slash("a/b");
  Table ragged("ragged");
  ragged.add_int("a").ints = {1, 2};
  ragged.add_int("b").ints = {1};
  Table dup("dup");
  dup.add_int("a").ints = {1};
  dup.add_double("a").doubles = {1};
  Table bad_column("bad_column");
  bad_column.add_int("x/y").ints = {1};
  EXPECT_FALSE(file->write_table(unnamed, diag));
  EXPECT_FALSE(file->write_table(slash, diag));
  EXPECT_FALSE(file->write_table(ragged, diag));
  EXPECT_FALSE(file->write_table(dup, diag));
  EXPECT_FALSE(file->write_table(bad_column, diag));
  ASSERT_TRUE(file->write_table(mixed_table(), diag));
  EXPECT_FALSE(file->write_table(mixed_table(), diag));  // same name twice
  ASSERT_EQ(diag.error_count(), 6u);
  const auto& items = diag.items();
  EXPECT_NE(items[0].what.find("no name"), std::string::npos) << items[0].what;
  EXPECT_NE(items[1].what.find("'a/b'"), std::string::npos) << items[1].what;
  EXPECT_NE(items[2].what.find("column b has 1 rows, expected 2"), std::string::npos);
  EXPECT_NE(items[3].what.find("column a appears twice"), std::string::npos);
  EXPECT_NE(items[4].what.find("'x/y'"), std::string::npos);
  EXPECT_NE(items[5].what.find("already in the HDF5 file"), std::string::npos);
  for (const auto& d : items) {
    EXPECT_EQ(d.file, h5.string());
    EXPECT_FALSE(d.hint.empty());
  }
  EXPECT_FALSE(file->failed());  // nothing half-written: the file is still good
  ASSERT_TRUE(file->finish(diag));
  Expectation e;
  e.table(mixed_table());
  auto& w = e.rest();
  w.key("absent");
  w.begin_array();
  for (const char* g : {"a", "ragged", "dup", "bad_column"}) w.value(g);
  w.end_array();
  expect_h5py_ok(h5, e.save(dir.path / "expected.json"), "ok 1 28\n");
}

// A full disk, simulated with a file-size limit in a child process: a diagnostic, and no file
// under the final name nor a temporary one.
TEST(Hdf5Writer, DiskFullLeavesNoFile) {
  TempDir dir;
  const fs::path h5 = dir.path / "full.h5";
  Table t("noise");
  auto& v = t.add_double("v");
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 400000; ++i) {  // xorshift: incompressible, ~3 MB
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v.doubles.push_back(static_cast<double>(x) / 3.0);
  }
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);  // write() fails with EFBIG instead of killing us
    struct rlimit lim = {256 * 1024, 256 * 1024};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    Diagnostics diag;
    auto file = Hdf5File::create(h5.string(), diag);
    if (!file) ::_exit(20);
    bool ok = file->write_table(t, diag);
    ok = file->finish(diag) && ok;
    int code = ok ? 10 : 0;
    if (!ok) {
      if (diag.error_count() < 1)
        code = 11;
      else if (diag.items().front().file != h5.string())
        code = 12;
      else if (diag.items().front().hint.find("disk space") == std::string::npos)
        code = 13;
    }
    ::_exit(code);
  }
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 0) << "10: write succeeded, 11-13: wrong diagnostic, 20: create";
  EXPECT_FALSE(fs::exists(h5));
  EXPECT_FALSE(fs::exists(h5.string() + ".tmp"));
}

TEST(Hdf5Writer, WriteTablesInOneCall) {
  SKIP_WITHOUT_H5PY();
  TempDir dir;
  const fs::path h5 = dir.path / "cluster_analysis.h5";
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
  expect_h5py_ok(h5, e.save(dir.path / "expected.json"), "ok 2 28\n");

  // An unwritable destination: false, and nothing under the final name.
  Diagnostics diag2;
  const fs::path bad = dir.path / "missing" / "x.h5";
  EXPECT_FALSE(cs::io::write_tables_hdf5(bad.string(), {&mixed}, meta, diag2));
  EXPECT_EQ(diag2.error_count(), 1u);
  EXPECT_FALSE(fs::exists(bad));
}
