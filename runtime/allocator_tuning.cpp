#include "runtime/allocator_tuning.h"

#include <malloc.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace cs::runtime {

namespace {
// Set once by tune_allocator_for_batch_parsing, before threads start.
bool g_memory_first = false;
int g_arenas = 0;  // M_ARENA_MAX as set (0: glibc's default)
}  // namespace

// AddressSanitizer replaces malloc: glibc's own arenas are then not the heap, and malloc_trim
// on them can fault (seen in the ASan pass: mtrim reading an arena with no top chunk).
#if defined(__SANITIZE_ADDRESS__)
#define CS_HEAP_IS_SANITIZERS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CS_HEAP_IS_SANITIZERS 1
#endif
#endif

namespace {
constexpr std::string_view kThreadCacheTunable = "glibc.malloc.tcache_count=";
}  // namespace

std::optional<std::string> tunables_with_thread_caches(const char* current) {
  const std::string setting = std::string(kThreadCacheTunable) + std::to_string(kThreadCacheBlocks);
  if (!current || !*current) return setting;
  if (std::string_view(current).find(kThreadCacheTunable) != std::string_view::npos)
    return std::nullopt;
  return std::string(current) + ":" + setting;
}

void restart_with_thread_caches(char** argv, bool memory_first, const char* program) {
#if defined(__linux__) && !defined(CS_HEAP_IS_SANITIZERS)
  if (!memory_first) return;
  const char* before = std::getenv("GLIBC_TUNABLES");
  const std::optional<std::string> tunables = tunables_with_thread_caches(before);
  if (!tunables) return;
  const std::optional<std::string> kept =
      before ? std::optional<std::string>(before) : std::nullopt;
  if (setenv("GLIBC_TUNABLES", tunables->c_str(), 1) != 0) return;
  execv(program, argv);
  // Not restarted: go on as before, the variable as it was (allocator_settings reads it).
  if (kept)
    setenv("GLIBC_TUNABLES", kept->c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
#else
  (void)argv;
  (void)memory_first;
  (void)program;
#endif
}

std::string allocator_settings() {
  std::string s = g_arenas > 0 ? std::to_string(g_arenas) + (g_arenas == 1 ? " arena" : " arenas")
                               : std::string("glibc's arenas");
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const std::string_view t = tunables ? tunables : "";
  if (const size_t at = t.find(kThreadCacheTunable); at != std::string_view::npos)
    s += ", " + std::to_string(std::atoi(tunables + at + kThreadCacheTunable.size())) +
         "-block thread caches";
  return s;
}

void tune_allocator_for_batch_parsing(int cores, bool memory_first) {
  g_memory_first = memory_first;
#ifdef M_TRIM_THRESHOLD
  mallopt(M_TRIM_THRESHOLD, 1 << 30);   // keep up to 1 GiB of freed heap for reuse
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // blocks below 32 MiB come from the (reused) heap
#endif
#ifdef M_ARENA_MAX
  // One arena per thread a run starts (a worker per core, the main thread, the HDF5 writer),
  // not glibc's 8 per core: each thread then allocates without waiting on another's lock, and
  // freed memory is spread over few arenas. With one per core (2 arenas on 2 cores for 4
  // threads), 256 ranks with no launcher spent 11% of their samples in malloc's lock wait and
  // wake: 1.00-1.03 s wall against 0.75-0.81 s with 4 arenas (68-73 -> 79-82 MB); 1,024 ranks
  // 1.65 -> 1.45-1.50 s (81-83 -> 90 MB; a first run of 3.50 s left out).
  // One in all when memory comes first: at 16,384 ranks the root's two arenas held 40-90 MB
  // free between them (mallinfo2), what one thread freed never serving the other.
  // On many cores the root's threads then share one arena per 8 cores: malloc's lock is taken
  // more often (DB export, 16,384 ranks, 2 cores: 556k voluntary context switches on the root
  // against 130k, CPU 84.7 -> 85.3 s, wall 57.9 -> 59.6 s, root 293 -> 286 MB).
  g_arenas = memory_first ? std::max(1, cores / 8) : std::max(1, cores) + 2;
  mallopt(M_ARENA_MAX, g_arenas);
#endif
}

bool reports_free_pages(std::string_view device, std::string_view features) {
  constexpr size_t kReportingBit = 5;  // VIRTIO_BALLOON_F_REPORTING
  return (device == "0x0005" || device == "0x5") && features.size() > kReportingBit &&
         features[kReportingBit] == '1';
}

bool decide_huge_pages(const char* env, const std::string& virtio_devices) {
  if (env) return std::string_view(env) != "off";
  std::error_code ec;
  for (const auto& dev : std::filesystem::directory_iterator(virtio_devices, ec)) {
    std::string device, features;
    std::ifstream(dev.path() / "device") >> device;
    std::ifstream(dev.path() / "features") >> features;
    if (reports_free_pages(device, features)) return false;
  }
  return true;
}

bool huge_pages_wanted() {
  static const bool wanted =
      decide_huge_pages(std::getenv("CS_HUGE_PAGES"), "/sys/bus/virtio/devices");
  return wanted;
}

void prefer_huge_pages() {
#if defined(__linux__) && defined(MADV_HUGEPAGE) && defined(M_TOP_PAD)
  if (!huge_pages_wanted()) return;
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;    // a transparent huge page
  constexpr uintptr_t kArena = uintptr_t{64} << 20;  // glibc's heap of a thread arena (64-bit)
  static const bool padded = [] { return mallopt(M_TOP_PAD, 128 << 20) != 0; }();
  (void)padded;
  thread_local uintptr_t advised_lo = 0, advised_hi = 0;  // what this thread advised last
  void* probe = std::malloc(1);
  if (!probe) return;
  const auto at = reinterpret_cast<uintptr_t>(probe);
  std::free(probe);
  const auto brk = reinterpret_cast<uintptr_t>(sbrk(0));
  uintptr_t lo = 0, hi = 0;
  if (at < brk) {
    // The main heap (below the program break): from here to the break (and the pad beyond it
    // once malloc grows the heap again, at the next call).
    lo = (at + kHuge - 1) & ~(kHuge - 1);
    hi = brk & ~(kHuge - 1);
  } else {
    // A thread arena: glibc maps each of its heaps at a multiple of their maximum size.
    lo = at & ~(kArena - 1);
    hi = lo + kArena;
  }
  if (hi <= lo || (lo >= advised_lo && hi <= advised_hi)) return;
  // Advice for a range with holes applies to its mappings; advice never changes contents.
  madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
  advised_lo = lo;
  advised_hi = hi;
#endif
}

bool memory_comes_first() {
  return g_memory_first;
}

bool worth_releasing(size_t free_bytes, bool memory_first) {
  return memory_first || free_bytes >= kReleaseAtLeast;
}

void release_freed_memory() {
#if defined(M_TRIM_THRESHOLD) && !defined(CS_HEAP_IS_SANITIZERS)
  if (!worth_releasing(mallinfo2().fordblks, g_memory_first)) return;
  malloc_trim(0);
#endif
}

}  // namespace cs::runtime
