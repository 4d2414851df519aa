// runtime/task_runner.h: every item runs once on any thread count, and the first error of a task
// is rethrown once in the caller after every thread has stopped.
#include "runtime/task_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace cs::runtime {
namespace {

TEST(ParallelFor, EveryItemRunsOnceOnAnyThreadCount) {
  for (int threads : {0, 1, 2, 4, 16}) {
    std::vector<std::atomic<int>> runs(100);
    parallel_for(runs.size(), threads, [&](size_t i) { ++runs[i]; });
    for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].load(), 1) << i << " " << threads;
  }
  parallel_for(0, 4, [](size_t) { FAIL() << "no item to run"; });
}

TEST(ParallelFor, FirstErrorIsRethrownOnceInTheCaller) {
  for (int threads : {1, 2, 4}) {
    std::atomic<int> ran{0};
    int caught = 0;
    try {
      parallel_for(1000, threads, [&](size_t i) {
        ++ran;
        if (i == 3) throw std::runtime_error("item 3 failed");
        // The other items take a while, so the failing thread (slow to throw under a sanitizer)
        // stops the run long before the other threads could have run every item.
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      });
    } catch (const std::runtime_error& e) {
      ++caught;
      EXPECT_EQ(std::string(e.what()), "item 3 failed");
    }
    EXPECT_EQ(caught, 1) << threads;
    // No new item starts after the failure (only the ones other threads already held).
    EXPECT_LT(ran.load(), 1000) << threads;
    if (threads == 1) {
      EXPECT_EQ(ran.load(), 4);
    }
  }
}

TEST(ParallelFor, ManyFailuresStillOneException) {
  int caught = 0;
  try {
    parallel_for(64, 4, [](size_t i) { throw std::runtime_error("item " + std::to_string(i)); });
  } catch (const std::runtime_error& e) {
    ++caught;
    EXPECT_EQ(std::string(e.what()).rfind("item ", 0), 0u);
  }
  EXPECT_EQ(caught, 1);
}

TEST(TaskGroup, WaitJoinsEveryTaskAndRethrowsTheFirstError) {
  std::atomic<int> done{0};
  TaskGroup group;
  group.run([&] {
    ++done;
    throw std::logic_error("task failed");
  });
  group.run([&] { ++done; });
  group.run([&] { ++done; });
  EXPECT_THROW(group.wait(), std::logic_error);
  EXPECT_EQ(done.load(), 3);      // the others ran to the end
  EXPECT_NO_THROW(group.wait());  // rethrown once
}

TEST(TaskGroup, DestructorJoinsWhenTheCallerThrows) {
  std::atomic<bool> finished{false};
  try {
    TaskGroup group;
    group.run([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      finished = true;
    });
    throw std::runtime_error("caller failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_TRUE(finished.load());  // joined before the scope was left
}

// Runs of consecutive items of about equal weight: never empty, never more than asked, covering
// every item in order.
TEST(BalancedRuns, ConsecutiveRunsOfAboutEqualWeight) {
  using V = std::vector<size_t>;
  EXPECT_EQ(runtime::balanced_runs({5, 1, 1, 5}, 2), (V{0, 2, 4}));
  EXPECT_EQ(runtime::balanced_runs({10, 1, 1}, 3), (V{0, 1, 2, 3}));
  EXPECT_EQ(runtime::balanced_runs({1, 1, 1, 1, 1, 1}, 3), (V{0, 2, 4, 6}));
  EXPECT_EQ(runtime::balanced_runs({7}, 4), (V{0, 1}));
  EXPECT_EQ(runtime::balanced_runs({}, 4), (V{0}));
  EXPECT_EQ(runtime::balanced_runs({3, 3}, 0), (V{0, 2}));
  EXPECT_EQ(runtime::balanced_runs({0, 0, 0}, 2), (V{0, 1, 3}));
  for (size_t parts = 1; parts < 9; ++parts) {
    V w;
    for (size_t i = 0; i < 20; ++i) w.push_back((i * 7) % 5);
    const V runs = runtime::balanced_runs(w, parts);
    ASSERT_LE(runs.size() - 1, parts);
    EXPECT_EQ(runs.front(), 0u);
    EXPECT_EQ(runs.back(), w.size());
    for (size_t k = 1; k < runs.size(); ++k) EXPECT_LT(runs[k - 1], runs[k]);
  }
}

TEST(TaskGroup, NoTasksNoError) {
  TaskGroup group;
  EXPECT_NO_THROW(group.wait());
}

}  // namespace
}  // namespace cs::runtime
