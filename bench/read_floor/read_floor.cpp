// The least time any tool can take to read a text job's bytes: every path on stdin is read whole
// (fstat, then read() until its size is in memory, no parsing) on THREADS threads (default: every
// core), the way clusterscope's parse threads take one file after another. Prints the wall and
// CPU seconds and the bytes read. `cat > /dev/null` is the other floor bench/cluster_e2e.sh prints:
// on a virtual machine its 128 KiB reads can cost several times this.
//   find JOB -type f ! -name trace_view.json | read_floor [THREADS]
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

namespace {

// Reads the file at `path` whole into `buf` (grown as needed); returns its bytes, or -1.
long read_whole(const std::string& path, std::vector<char>& buf) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    close(fd);
    return -1;
  }
  const auto size = static_cast<size_t>(st.st_size);
  if (buf.size() < size + 1) buf.resize(size + 1);
  size_t got = 0;
  for (ssize_t n; (n = read(fd, buf.data() + got, buf.size() - got)) > 0;)
    got += static_cast<size_t>(n);
  close(fd);
  return static_cast<long>(got);
}

}  // namespace

int main(int argc, char** argv) {
  unsigned threads =
      argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : std::thread::hardware_concurrency();
  if (threads == 0) threads = 1;
  std::vector<std::string> paths;
  for (std::string p; std::getline(std::cin, p);)
    if (!p.empty()) paths.push_back(p);
  std::atomic<size_t> next{0};
  std::atomic<long> bytes{0}, failed{0};
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      std::vector<char> buf;
      for (size_t i; (i = next.fetch_add(1)) < paths.size();) {
        const long n = read_whole(paths[i], buf);
        if (n < 0)
          failed.fetch_add(1);
        else
          bytes.fetch_add(n);
      }
    });
  for (std::thread& t : pool) t.join();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  std::printf("%.3f %.3f %ld %zu\n", wall, cpu, bytes.load(), paths.size());
  if (failed.load() > 0) {
    std::fprintf(stderr, "read_floor: %ld file(s) could not be read\n", failed.load());
    return 1;
  }
  return 0;
}
