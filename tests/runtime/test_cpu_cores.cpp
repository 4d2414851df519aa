// runtime/cpu_cores.h: the threads a process works with, asked for or its share of the cores;
// the affinity masks the root widens while it analyses.
#include "runtime/cpu_cores.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace cs::runtime {
namespace {

TEST(ThreadsPerProcess, AskedForIsUsed) {
  EXPECT_EQ(runtime::threads_per_process(3, 1), 3);
  EXPECT_EQ(runtime::threads_per_process(7, 4), 7);
}

TEST(ThreadsPerProcess, DefaultIsTheProcessShareOfItsCores) {
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int cores = runtime::usable_cores();
  const int one = runtime::threads_per_process(0, 1);
  EXPECT_EQ(one, cores < hw ? cores : hw);
  // Many processes on the node: at least one thread each.
  EXPECT_EQ(runtime::threads_per_process(0, hw * 4), cores < hw ? cores : 1);
}

// The CPUs thread `tid` may run on.
std::vector<int> cpus_of(pid_t tid) {
  std::vector<int> out;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(tid, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

// Narrowed to its first CPU, the process is widened to all of them on every thread (one started
// before, one meanwhile), and set back on every thread at the end; CPUs it already has add nothing.
TEST(WiderAffinity, EveryThreadWidenedThenSetBack) {
  const std::vector<int> all = affinity_cpus();
  ASSERT_FALSE(all.empty());
  ASSERT_GE(all.size(), 2u) << "the test needs a mask of at least 2 CPUs";
  const std::vector<int> first{all.front()};
  ASSERT_TRUE(set_affinity(first));
  std::atomic<pid_t> before_tid{0};
  std::atomic<bool> stop{false};
  std::thread before([&] {
    before_tid = ::gettid();
    while (!stop) std::this_thread::yield();
  });
  while (before_tid == 0) std::this_thread::yield();
  EXPECT_EQ(cpus_of(before_tid), first);
  {
    const WiderAffinity same(first);
    EXPECT_FALSE(same.widened());
  }
  {
    const WiderAffinity wider(all);
    EXPECT_TRUE(wider.widened());
    EXPECT_EQ(affinity_cpus(), all);
    EXPECT_EQ(cpus_of(before_tid), all);
    EXPECT_EQ(usable_cores(), static_cast<int>(all.size()));
    std::vector<int> inherited;  // a thread started meanwhile
    std::thread check([&] { inherited = affinity_cpus(); });
    check.join();
    EXPECT_EQ(inherited, all);
  }
  EXPECT_EQ(affinity_cpus(), first);
  EXPECT_EQ(cpus_of(before_tid), first);
  stop = true;
  before.join();
  ASSERT_TRUE(set_affinity(all));
}

}  // namespace
}  // namespace cs::runtime
