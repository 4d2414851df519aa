// Input files checked before they are read whole (issue 17, findings 7 and 10): a FIFO, a device,
// a symlink loop and a missing file each named as such (never "no such file" for all), a sparse
// 8 GB communication.json refused by its size and a sparse file of zeros by its first bytes
// (before any read of the whole), text of another kind refused without echoing it.

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "io/csv/csv_reader.h"
#include "io/input_file.h"
#include "io/json/json_file.h"

namespace cs::io {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("cs_test_input_file_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string only_error(const Diagnostics& d) {
  EXPECT_EQ(d.items().size(), 1u);
  EXPECT_EQ(d.error_count(), 1u);
  return d.items().empty() ? std::string() : d.items()[0].what;
}

long max_rss_kb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

TEST(InputFile, ErrnoWords) {
  EXPECT_EQ(errno_text(ENOENT), "file not found");
  EXPECT_EQ(errno_text(EACCES), "permission denied");
  EXPECT_EQ(errno_text(EPERM), "permission denied");
  EXPECT_NE(errno_text(ELOOP).find("symlink loop"), std::string::npos);
  EXPECT_NE(errno_hint(EACCES).find("permissions"), std::string::npos);
}

TEST(InputFile, SizeText) {
  EXPECT_EQ(size_text(512), "512 bytes");
  EXPECT_EQ(size_text(64'000'000), "64 MB");
  EXPECT_EQ(size_text(8'000'000'001), "8.0 GB");
  EXPECT_EQ(size_text(2'147'483'648), "2.1 GB");
  EXPECT_EQ(size_text(12'500'000'000), "12 GB");
}

TEST(InputFile, LimitsByKind) {
  EXPECT_EQ(input_limit_for("a/communication.json").max_bytes, 8'000'000'000u);
  EXPECT_EQ(input_limit_for("a/communication_matrix.json").kind, "communication_matrix.json");
  EXPECT_EQ(input_limit_for("profiler_info_3.json").max_bytes, 64'000'000u);
  EXPECT_EQ(input_limit_for("r/profiler_metadata.json").max_bytes, 64'000'000u);
  EXPECT_EQ(input_limit_for("rank-0.pt.trace.json").max_bytes, 32'000'000'000u);
}

TEST(InputFile, FifoDeviceLoopAndMissingAreNamed) {
  const fs::path d = fresh_dir("kinds");
  const std::string fifo = (d / "communication.json").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string loop = (d / "loop.json").string();
  fs::create_symlink(d / "loop2.json", loop);
  fs::create_symlink(d / "loop.json", d / "loop2.json");
  struct Case {
    std::string path, expect;
  };
  const Case cases[] = {{fifo, "is a FIFO (named pipe), not a regular file"},
                        {"/dev/zero", "is a character device, not a regular file"},
                        {loop, "a symlink loop"},
                        {(d / "absent.json").string(), "file not found"},
                        {d.string(), "is a directory"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    const auto t0 = std::chrono::steady_clock::now();
    simdjson::padded_string text;
    Diagnostics diag;
    EXPECT_FALSE(load_json_file(c.path, text, diag));
    EXPECT_NE(only_error(diag).find(c.expect), std::string::npos) << only_error(diag);
    EXPECT_EQ(diag.items()[0].file, c.path);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));  // never blocks
    // The CSV reader says the same.
    Diagnostics cdiag;
    CsvReader r(c.path, cdiag);
    EXPECT_FALSE(r.open());
    EXPECT_NE(only_error(cdiag).find(c.expect), std::string::npos) << only_error(cdiag);
  }
}

TEST(InputFile, OversizedFileRefusedByItsSize) {
  const fs::path d = fresh_dir("big");
  const std::string path = (d / "communication.json").string();
  {
    const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, 8'000'000'001), 0);  // sparse: no disk used
    ::close(fd);
  }
  const long rss_before = max_rss_kb();
  simdjson::padded_string text;
  Diagnostics diag;
  EXPECT_FALSE(load_json_file(path, text, diag));
  EXPECT_EQ(only_error(diag), "too large for a communication.json (8.0 GB; limit 8 GB)");
  EXPECT_LT(max_rss_kb() - rss_before, 50'000);
  fs::remove_all(d);
}

TEST(InputFile, NonJsonHeadRefusedBeforeTheWholeRead) {
  const fs::path d = fresh_dir("head");
  // 1 GB of zeros (sparse), within the size limit: refused from its first bytes.
  const std::string zeros = (d / "communication_matrix.json").string();
  {
    const int fd = ::open(zeros.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, 1'000'000'000), 0);
    ::close(fd);
  }
  const long rss_before = max_rss_kb();
  {
    simdjson::padded_string text;
    Diagnostics diag;
    EXPECT_FALSE(load_json_file(zeros, text, diag));
    EXPECT_EQ(only_error(diag),
              "not a JSON file: it does not begin with '{' or '[' (binary data at byte 0)");
  }
  EXPECT_LT(max_rss_kb() - rss_before, 50'000);
  // Text of another kind (a file linked in by mistake): refused, its text not repeated.
  const std::string passwd = (d / "profiler_metadata.json").string();
  std::ofstream(passwd) << "\xEF\xBB\xBF  root:x:0:0:root:/root:/bin/bash\n";
  simdjson::padded_string text;
  Diagnostics diag;
  EXPECT_FALSE(load_json_file(passwd, text, diag));
  EXPECT_EQ(only_error(diag),
            "not a JSON file: it does not begin with '{' or '[' (text of another kind at byte 5)");
  EXPECT_EQ(diag.items()[0].offset, 5);
  fs::remove_all(d);
}

}  // namespace
}  // namespace cs::io
