// One very long value in a string column (a 4 MB operator name among short ones) costs its own
// bytes in the HDF5 file: the column is stored as variable-length strings
// (io::hdf5_variable_strings), not padded to 4 MB per row; short-string columns stay fixed-length.
// h5py reads both alike; HDF5's own filtering and the chunks filtered beforehand give one file.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>

#include "io/hdf5/hdf5_chunks.h"
#include "io/hdf5/hdf5_writer.h"
#include "io/hdf5_test_util.h"
#include "support/test_files.h"

namespace fs = std::filesystem;
using cs::io::Diagnostics;
using cs::io::Hdf5File;
using cs::io::Table;
using namespace cs::test::hdf5;  // NOLINT: the helpers of hdf5_test_util.h

namespace {

constexpr size_t kLongBytes = size_t{1} << 20;
constexpr int kRows = 1000;

// kRows rows of short op names, row 17 a 1 MiB name of random printable ASCII (deflate cannot
// hide its size), and a short-name column beside it.
Table long_name_table() {
  Table t("communication_ops");
  auto& op = t.add_string("op");
  auto& group = t.add_string("group");
  auto& n = t.add_int("n");
  std::mt19937 rng(5);
  std::string long_name = "hcom_allReduce_";
  while (long_name.size() < kLongBytes) long_name += static_cast<char>(' ' + rng() % 95);
  for (int i = 0; i < kRows; ++i) {
    op.strings.push_back(i == 17 ? long_name : "hcom_allGather__" + std::to_string(i));
    group.strings.push_back("group_" + std::to_string(i % 3));
    n.ints.push_back(i);
  }
  return t;
}

TEST(Hdf5LongStrings, ALongNameCostsItsOwnBytes) {
  SKIP_WITHOUT_H5PY();
  const Table t = long_name_table();
  EXPECT_TRUE(cs::io::hdf5_variable_strings(t.columns[0]));
  EXPECT_FALSE(cs::io::hdf5_variable_strings(t.columns[1]));
  TempDir dir("cs_hdf5_long");
  std::string files[2];
  for (int variant = 0; variant < 2; ++variant) {  // HDF5 filters; chunks filtered beforehand
    const fs::path h5 = dir.path() / ("v" + std::to_string(variant) + ".h5");
    Diagnostics diag;
    auto file = Hdf5File::create(h5.string(), diag);
    ASSERT_TRUE(file);
    if (variant == 0) {
      ASSERT_TRUE(file->write_table(t, diag));
    } else {
      const cs::io::Hdf5TableOptions opt;
      const auto chunks =
          cs::io::filter_table_chunks(t, opt.chunk_rows, opt.shuffle, opt.deflate_level, 3);
      ASSERT_TRUE(file->write_table(t, diag, opt, &chunks));
    }
    ASSERT_TRUE(file->finish(diag)) << (diag.empty() ? "" : diag.items()[0].to_string());
    // The name once, plus little: padded to 1 MiB per row it was 1,000 MiB before deflate.
    EXPECT_LT(fs::file_size(h5), kLongBytes + 200 * 1024) << h5;
    files[variant] = cs::test::slurp(h5);
    Expectation e;
    e.table(t);
    expect_h5py_ok(h5, e.save(dir.path() / "expected.json"), "ok 1 3000\n");
    std::string out;
    ASSERT_EQ(
        cs::test::run_merged("/usr/bin/python3 -c \"import h5py; f = h5py.File('" + h5.string() +
                                 "'); print(h5py.check_string_dtype(f['communication_ops/"
                                 "op'].dtype).length, f['communication_ops/group'].dtype)\"",
                             out),
        0)
        << out;
    EXPECT_EQ(out, "None |S7\n");  // variable-length; the short column fixed-length
  }
  EXPECT_TRUE(files[0] == files[1]);
}

}  // namespace
