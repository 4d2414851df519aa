// HDF5 writer error paths: a missing directory, abandoned and moved writers, bad tables, a
// full disk. The files that are written are checked by h5py (tests/data/h5/check_table.py).

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <iterator>
#include <string>

#include "io/hdf5/hdf5_error.h"
#include "io/hdf5/hdf5_writer.h"
#include "io/hdf5_test_util.h"
#include "support/missing_tool.h"

using cs::io::Hdf5File;
using namespace cs::test::hdf5;  // NOLINT: the helpers of hdf5_test_util.h

TEST_F(Hdf5Writer, MissingDirectoryIsADiagnostic) {
  const std::string h5 = (dir.path() / "no_such_dir" / "x.h5").string();
  Diagnostics diag;
  EXPECT_FALSE(Hdf5File::create(h5, diag));
  ASSERT_EQ(diag.error_count(), 1u);
  const auto& d = diag.items().front();
  EXPECT_EQ(d.file, h5);
  EXPECT_NE(d.what.find("cannot create HDF5 file"), std::string::npos) << d.what;
  EXPECT_NE(d.what.find("No such file or directory"), std::string::npos) << d.what;
  EXPECT_NE(d.hint.find("does not exist"), std::string::npos) << d.hint;
}

TEST_F(Hdf5Writer, AbandonedWriterLeavesNoFile) {
  const fs::path h5 = dir.path() / "x.h5";
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

TEST_F(Hdf5Writer, MovedWriterFinishesOnce) {
  ASSERT_TRUE(open("m.h5"));
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
  if (run_merged("command -v h5dump", out) == 0) {
    EXPECT_EQ(run_merged("h5dump -H " + h5.string(), out), 0) << out;
  } else if (cs::test::in_ci()) {
    ADD_FAILURE() << "missing tool under CI=true: h5dump (hdf5-tools) \u2014 run "
                     "scripts/install-deps.sh";
  }
}

TEST_F(Hdf5Writer, BadTablesAreDiagnosticsAndTheRestIsWritten) {
  SKIP_WITHOUT_H5PY();
  ASSERT_TRUE(open("bad.h5"));

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
  expect_h5py_ok(h5, e.save(dir.path() / "expected.json"), "ok 1 28\n");
}

// A full disk, simulated with a file-size limit in a child process: a diagnostic, and no file
// under the final name nor a temporary one.
TEST_F(Hdf5Writer, DiskFullLeavesNoFile) {
  const fs::path h5 = dir.path() / "full.h5";
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
