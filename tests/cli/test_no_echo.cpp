// Messages name the file, line and byte offset and say what was expected; they never quote what
// an input line holds (a file linked in by mistake may hold secrets, and a report travels further
// than the profiler directory): not on stderr, not in rank_manifest.csv, report.html or the HDF5.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "support/missing_tool.h"
#include "support/test_data.h"
#include "tests/cli/cli_test_util.h"

namespace fs = std::filesystem;
using cs::test::read_file;
using cs::test::run_command;
using cs::test::temp_dir;

namespace {

using cs::test::kTextJob;
const std::string kMarker = "S3CRET-MARKER";

void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// Every byte of every file below `dir` (binary included: HDF5 attributes are stored raw) and of
// `log`: where the marker must not be.
std::string everything_written(const fs::path& dir, const fs::path& log) {
  std::string all = read_file(log);
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) all += read_file(e.path());
  return all;
}

// text_level1 copied, with rank 0's kernel_details.csv replaced by `make(path)`.
fs::path job_with_kernel_details(const fs::path& root,
                                 const std::function<void(const fs::path&)>& make) {
  const fs::path job = root / "job";
  fs::copy(kTextJob, job, fs::copy_options::recursive);
  const fs::path kd = job / "rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv";
  fs::remove(kd);
  make(kd);
  return job;
}

void expect_marker_nowhere(const fs::path& root, const fs::path& job, const std::string& what,
                           bool named = true) {
  const fs::path out = root / "out";
  const fs::path log = root / "log.txt";
  const int rc = run_command(std::string(CS_BINARY) + " cluster -d " + job.string() + " -o " +
                                 out.string() + " --format all",
                             log.string());
  EXPECT_NE(rc, -1);
  const std::string log_text = read_file(log);
  // The problem is reported, by file and line, without the content.
  if (named) {
    EXPECT_NE(log_text.find("kernel_details.csv"), std::string::npos) << what << "\n" << log_text;
  }
  EXPECT_TRUE(fs::is_regular_file(out / "cluster_analysis_output/rank_manifest.csv")) << log_text;
  // The HDF5 file's datasets are deflated: read back through h5py, every string and attribute.
  const fs::path h5 = out / "cluster_analysis_output/cluster_analysis.h5";
  ASSERT_TRUE(fs::exists(h5)) << log_text;
  const fs::path h5_text = root / "h5.txt";
  if (run_command("/usr/bin/python3 -c 'import h5py'", "/dev/null") != 0)
    CS_MISSING_TOOL("python3-h5py (reads the HDF5 file back)");
  ASSERT_EQ(run_command("/usr/bin/python3 -c \"import h5py, sys\n"
                        "f = h5py.File(sys.argv[1])\n"
                        "def show(name, o):\n"
                        "    print(name, dict(o.attrs))\n"
                        "    if isinstance(o, h5py.Dataset) and h5py.check_string_dtype(o.dtype):\n"
                        "        print(list(o.asstr()[:]))\n"
                        "print(dict(f.attrs))\n"
                        "f.visititems(show)\" " +
                            h5.string() + " >" + h5_text.string(),
                        ""),
            0);
  EXPECT_GT(fs::file_size(h5_text), 0u);
  EXPECT_EQ((everything_written(out, log) + read_file(h5_text)).find(kMarker), std::string::npos)
      << what << ": the input's content was echoed\n"
      << log_text;
}

TEST(NoEcho, KernelDetailsLinkedToAPasswdFileIsNotQuoted) {
  ASSERT_TRUE(fs::is_directory(kTextJob)) << kTextJob;
  const fs::path root = temp_dir("no_echo_passwd");
  const fs::path secret = root / "secret/passwd";
  write_text(secret, kMarker + ":x:0:0:root:/root:/bin/bash\n" +
                         "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n");
  const fs::path job =
      job_with_kernel_details(root, [&](const fs::path& kd) { fs::create_symlink(secret, kd); });
  expect_marker_nowhere(root, job, "a passwd-shaped kernel_details.csv");
  fs::remove_all(root);
}

TEST(NoEcho, ANonNumericCellIsNotQuoted) {
  ASSERT_TRUE(fs::is_directory(kTextJob)) << kTextJob;
  const fs::path root = temp_dir("no_echo_cell");
  const fs::path job = job_with_kernel_details(root, [&](const fs::path& kd) {
    write_text(kd,
               "Step Id,Name,Type,Start Time(us),Duration(us)\n"
               "1,MatMul,MatMul,100," +
                   kMarker + "\n1,Add,Add,200,3.5\n");
  });
  // `cluster` reads the columns it needs; `top` reads every row and reports the bad cell.
  expect_marker_nowhere(root, job, "a kernel_details.csv with a secret in a number column", false);
  const fs::path log = root / "top.log";
  run_command(std::string(CS_BINARY) + " top " + (job / "rank0_ascend_pt").string(), log.string());
  const std::string top = read_file(log);
  EXPECT_NE(top.find("kernel_details.csv:2: column \"Duration(us)\" (field 5): expected a number"),
            std::string::npos)
      << top;
  EXPECT_EQ(top.find(kMarker), std::string::npos) << top;
  fs::remove_all(root);
}

}  // namespace
