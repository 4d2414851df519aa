// runtime/cpu_cores.h: the threads a process works with, asked for or its share of the cores.
#include "runtime/cpu_cores.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

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

}  // namespace
}  // namespace cs::runtime
