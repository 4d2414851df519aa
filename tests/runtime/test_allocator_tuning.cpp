// runtime/allocator_tuning.h: prefer_huge_pages() marks the heap a thread allocates from for
// transparent huge pages, on the main heap and in a thread's own arena.
#include "runtime/allocator_tuning.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include "support/test_files.h"
#include "support/under_asan.h"

namespace cs::io {
namespace {

// The VmFlags of the mapping holding `p` (/proc/self/smaps); empty when not found.
std::string vm_flags_of(const void* p) {
  const auto at = reinterpret_cast<uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = at >= lo && at < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return {};
}

// True when the mapping holding `p` is advised for huge pages ("hg" among its VmFlags).
bool advised_huge(const void* p) {
  return vm_flags_of(p).find(" hg") != std::string::npos;
}

void* volatile kept;  // keeps the compiler from eliding a malloc/free pair

// A block malloc takes from the heap (below its 32 MiB mmap threshold, so not its own mapping)
// after prefer_huge_pages(), large enough to make the heap grow.
void* heap_block_after_advice() {
  runtime::prefer_huge_pages();
  kept = std::malloc(8 << 20);   // the heap grows (with its pad) ...
  runtime::prefer_huge_pages();  // ... and the new part is advised at the next call
  void* p = std::malloc(4 << 20);
  std::free(kept);
  return p;
}

TEST(PreferHugePages, MainHeapAndThreadArenasAreAdvised) {
  setenv("CS_HUGE_PAGES", "on", 1);  // whatever the machine (huge_pages_wanted decides once)
  runtime::tune_allocator_for_batch_parsing(
      2);  // as main() does: blocks below 32 MiB from the heap
  const int on_the_stack = 0;
  if (vm_flags_of(&on_the_stack).empty()) GTEST_FAIL() << "/proc/self/smaps has no VmFlags";
#if CS_UNDER_ASAN
  // AddressSanitizer's allocator is not glibc's heap: the advice has no heap to find. The call
  // must still be harmless.
  void* p = heap_block_after_advice();
  ASSERT_NE(p, nullptr);
  std::memset(p, 1, 4096);
  std::free(p);
  return;
#endif
  if (!std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled")) {
    // A kernel without transparent huge pages refuses the advice; the heap works as before.
    void* p = heap_block_after_advice();
    EXPECT_FALSE(advised_huge(p)) << vm_flags_of(p);
    std::free(p);
    return;
  }
  void* main_block = heap_block_after_advice();
  EXPECT_TRUE(advised_huge(main_block)) << vm_flags_of(main_block);
  bool thread_advised = false;
  std::string thread_flags;
  std::thread t([&] {
    void* p = heap_block_after_advice();
    thread_advised = advised_huge(p);
    thread_flags = vm_flags_of(p);
    std::free(p);
  });
  t.join();
  EXPECT_TRUE(thread_advised) << thread_flags;
  std::free(main_block);
}

TEST(PreferHugePages, OffOnAVirtualMachineThatReportsFreePages) {
  test::TempDir t("cs_huge_pages");
  const std::string devices = t.str() + "/devices";
  auto device = [&](const std::string& name, const std::string& id, const std::string& bits) {
    std::filesystem::create_directories(devices + "/" + name);
    test::write_file(devices + "/" + name + "/device", id + "\n");
    test::write_file(devices + "/" + name + "/features", bits + "\n");
  };
  device("virtio0", "0x0001", "1100010110111011");  // a network card
  EXPECT_TRUE(runtime::decide_huge_pages(nullptr, devices));
  EXPECT_TRUE(
      runtime::decide_huge_pages(nullptr, t.str() + "/no-such-folder"));  // not a virtio guest
  device("virtio1", "0x0005", "0110010100000000");  // a balloon that reports free pages
  EXPECT_FALSE(runtime::decide_huge_pages(nullptr, devices));
  EXPECT_TRUE(runtime::decide_huge_pages("on", devices));
  EXPECT_FALSE(runtime::decide_huge_pages("off", t.str() + "/no-such-folder"));
}

TEST(PreferHugePages, FreePageReportingBalloonsAreRecognised) {
  // This VM's balloon: features bits 1, 2 and 5 (stats, deflate on OOM, free page reporting).
  EXPECT_TRUE(runtime::reports_free_pages("0x0005", "0110010100000000000000000000000010"));
  EXPECT_FALSE(
      runtime::reports_free_pages("0x0005", "0110000100000000000000000000000010"));  // no bit 5
  EXPECT_FALSE(
      runtime::reports_free_pages("0x0001", "0110010100000000000000000000000010"));  // a NIC
  EXPECT_FALSE(runtime::reports_free_pages("0x0005", "0110"));
}

TEST(ReleaseFreedMemory, TheRootOfSeveralAlwaysReleasesOthersOnlyALargeFreeHeap) {
  EXPECT_TRUE(runtime::worth_releasing(0, true));
  EXPECT_TRUE(runtime::worth_releasing(size_t{1} << 20, true));
  EXPECT_FALSE(runtime::worth_releasing(0, false));
  EXPECT_FALSE(runtime::worth_releasing(runtime::kReleaseAtLeast - 1, false));
  EXPECT_TRUE(runtime::worth_releasing(runtime::kReleaseAtLeast, false));
}

TEST(ThreadCaches, AddedToTheTunablesUnlessAlreadySet) {
  EXPECT_EQ(runtime::tunables_with_thread_caches(nullptr), "glibc.malloc.tcache_count=64");
  EXPECT_EQ(runtime::tunables_with_thread_caches(""), "glibc.malloc.tcache_count=64");
  EXPECT_EQ(runtime::tunables_with_thread_caches("glibc.malloc.arena_max=2"),
            "glibc.malloc.arena_max=2:glibc.malloc.tcache_count=64");
  EXPECT_FALSE(runtime::tunables_with_thread_caches("glibc.malloc.tcache_count=7").has_value());
  EXPECT_FALSE(
      runtime::tunables_with_thread_caches("glibc.malloc.arena_max=2:glibc.malloc.tcache_count=64")
          .has_value());
}

TEST(ThreadCaches, AFailedRestartLeavesTheTunablesAsTheyWere) {
  char arg0[] = "clusterscope";
  char* argv[] = {arg0, nullptr};
  const char* before = std::getenv("GLIBC_TUNABLES");
  const std::string kept = before ? before : "";
  test::TempDir t("cs_no_restart");
  const std::string missing = t.str() + "/no-such-program";
  setenv("GLIBC_TUNABLES", "glibc.malloc.arena_max=2", 1);
  runtime::restart_with_thread_caches(argv, true, missing.c_str());  // execv fails: returns
  ASSERT_NE(std::getenv("GLIBC_TUNABLES"), nullptr);
  EXPECT_STREQ(std::getenv("GLIBC_TUNABLES"), "glibc.malloc.arena_max=2");
  unsetenv("GLIBC_TUNABLES");
  runtime::restart_with_thread_caches(argv, true, missing.c_str());
  EXPECT_EQ(std::getenv("GLIBC_TUNABLES"), nullptr);
  if (before) setenv("GLIBC_TUNABLES", kept.c_str(), 1);
}

}  // namespace
}  // namespace cs::io
