#include "runtime/heap_log.h"

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace cs::runtime {

namespace {

// The resident memory of /proc/self/status by kind (RssAnon, RssFile, RssShmem), in kB; 0 where
// absent. Plain reads: the log thread may still run while the process exits.
void resident_kb(long& anon, long& file, long& shmem) {
  anon = file = shmem = 0;
  const int fd = ::open("/proc/self/status", O_RDONLY);
  if (fd < 0) return;
  char buf[4096];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return;
  buf[n] = '\0';
  auto field = [&](const char* key) {
    const char* at = std::strstr(buf, key);
    return at ? std::atol(at + std::strlen(key)) : 0L;
  };
  anon = field("RssAnon:");
  file = field("RssFile:");
  shmem = field("RssShmem:");
}

}  // namespace

HeapSample sample_heap() {
  HeapSample s;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  const struct mallinfo2 m = mallinfo2();
  s.extent_mb = static_cast<double>(m.arena + m.hblkhd) / 1e6;
  s.in_use_mb = static_cast<double>(m.uordblks + m.hblkhd) / 1e6;
  s.free_mb = static_cast<double>(m.fordblks) / 1e6;
#endif
  long anon = 0, file = 0, shmem = 0;
  resident_kb(anon, file, shmem);
  s.anon_rss_mb = static_cast<double>(anon) / 1e3;
  s.file_rss_mb = static_cast<double>(file) / 1e3;
  s.shmem_rss_mb = static_cast<double>(shmem) / 1e3;
  return s;
}

bool start_heap_log(const char* path, int interval_ms) {
  if (!path || !*path) return false;
  const std::string file = std::string(path) + "." + std::to_string(::getpid());
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const auto interval = std::chrono::milliseconds(interval_ms > 0 ? interval_ms : 200);
  // Detached and never joined: the descriptor stays open until the process ends.
  std::thread([fd, interval] {
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
      const HeapSample s = sample_heap();
      const double t =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      char line[200];
      const int n = std::snprintf(
          line, sizeof line,
          "%.2f extent %.1f in_use %.1f free %.1f anon %.1f file %.1f shmem %.1f\n", t, s.extent_mb,
          s.in_use_mb, s.free_mb, s.anon_rss_mb, s.file_rss_mb, s.shmem_rss_mb);
      if (n <= 0 || ::write(fd, line, static_cast<size_t>(n)) != n) return;
      std::this_thread::sleep_for(interval);
    }
  }).detach();
  return true;
}

}  // namespace cs::runtime
