// The heap log: samples of the malloc heap's extent and use, written to <path>.<pid>.
#include "runtime/heap_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using cs::runtime::HeapSample;
using cs::runtime::sample_heap;
using cs::runtime::start_heap_log;

#if defined(__SANITIZE_ADDRESS__)
#define CS_TEST_SANITIZED_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CS_TEST_SANITIZED_HEAP 1
#endif
#endif

TEST(HeapLog, InUseFollowsWhatIsAllocated) {
  const HeapSample before = sample_heap();
  // 64 blocks of 256 KiB, touched: below the process's mmap threshold or not, they are counted.
  std::vector<std::unique_ptr<char[]>> blocks;
  for (int i = 0; i < 64; ++i) {
    blocks.emplace_back(new char[256 << 10]);
    std::memset(blocks.back().get(), i, 256 << 10);
  }
  const HeapSample during = sample_heap();
  EXPECT_GT(during.anon_rss_mb, 0.0);
#ifndef CS_TEST_SANITIZED_HEAP  // AddressSanitizer's allocator is not glibc's arenas
  EXPECT_GE(during.in_use_mb - before.in_use_mb, 16.0);
  EXPECT_GE(during.extent_mb, during.in_use_mb);
  EXPECT_GE(during.anon_rss_mb - before.anon_rss_mb, 16.0);
#endif
  blocks.clear();
#ifndef CS_TEST_SANITIZED_HEAP
  EXPECT_LE(sample_heap().in_use_mb, during.in_use_mb - 16.0);
#endif
}

TEST(HeapLog, WritesALineEachInterval) {
  const fs::path base = fs::temp_directory_path() / ("cs_heap_log_" + std::to_string(::getpid()));
  ASSERT_TRUE(start_heap_log(base.c_str(), 20));
  const fs::path file = base.string() + "." + std::to_string(::getpid());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::ifstream in(file);
  ASSERT_TRUE(in) << file;
  std::string line;
  int lines = 0;
  double last_t = -1;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    double t = 0, extent = 0, in_use = 0, free = 0, anon = 0, file = 0, shmem = -1;
    std::string k1, k2, k3, k4, k5, k6;
    s >> t >> k1 >> extent >> k2 >> in_use >> k3 >> free >> k4 >> anon >> k5 >> file >> k6 >> shmem;
    ASSERT_TRUE(s) << line;
    EXPECT_EQ(k1 + k2 + k3 + k4 + k5 + k6, "extentin_usefreeanonfileshmem");
    EXPECT_GT(file, 0.0);  // the test binary itself
    EXPECT_GE(shmem, 0.0);
    EXPECT_GE(t, last_t);
    EXPECT_GT(anon, 0.0);
    last_t = t;
    ++lines;
  }
  EXPECT_GE(lines, 3);  // one at once, then one each 20 ms
  fs::remove(file);
}

TEST(HeapLog, NoPathOrNoDirectoryStartsNothing) {
  EXPECT_FALSE(start_heap_log(nullptr));
  EXPECT_FALSE(start_heap_log(""));
  EXPECT_FALSE(start_heap_log("/nonexistent-dir-of-clusterscope/heap"));
}
