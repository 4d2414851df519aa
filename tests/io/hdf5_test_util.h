#pragma once
// Helpers of the HDF5 writer tests (test_hdf5_writer*.cpp): the fixture (a temporary directory
// and a new file), the h5py
// checker (tests/data/h5/check_table.py) and its expectations, sample tables.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>

#include "io/hdf5/hdf5_writer.h"
#include "io/json/json_writer.h"
#include "io/py_format.h"
#include "io/table.h"
#include "support/missing_tool.h"
#include "support/test_files.h"

namespace cs::test::hdf5 {

namespace fs = std::filesystem;
using cs::io::ColumnType;
using cs::io::Diagnostics;
using cs::io::Table;

inline const std::string kChecker = std::string(CS_TEST_DATA) + "/h5/check_table.py";

using cs::test::TempDir;

// The fixture of the HDF5 writer tests: a temporary directory and, after open(name), a new HDF5
// file there (h5, file) with its diagnostics (diag).
class Hdf5Writer : public ::testing::Test {
 protected:
  // Creates <dir>/<name>; false when it could not be created.
  bool open(const std::string& name) {
    h5 = dir.path() / name;
    file = cs::io::Hdf5File::create(h5.string(), diag);
    return file.has_value();
  }
  TempDir dir{"cs_hdf5_writer"};
  fs::path h5;
  Diagnostics diag;
  std::optional<cs::io::Hdf5File> file;
};
using cs::test::run_merged;
// "" when /usr/bin/python3 can import h5py, else why not.
inline std::string h5py_missing() {
  static const std::string why = [] {
    std::string out;
    return run_merged("/usr/bin/python3 -c 'import h5py, numpy'", out) == 0 ? std::string() : out;
  }();
  return why;
}

#define SKIP_WITHOUT_H5PY() \
  if (!h5py_missing().empty()) CS_MISSING_TOOL("python3-h5py (" << h5py_missing() << ")")

inline Table mixed_table() {
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

inline Table empty_table() {
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
      // py_repr keeps NaN/Infinity (JsonWriter writes them as null): only Python reads this.
      for (double d : c.doubles) w_.raw_value(cs::io::py_repr(d));
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
inline void expect_h5py_ok(const fs::path& h5, const std::string& expected,
                           const std::string& want) {
  std::string out;
  int rc = run_merged("/usr/bin/python3 " + kChecker + " " + h5.string() + " " + expected, out);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out, want);
}

}  // namespace cs::test::hdf5
