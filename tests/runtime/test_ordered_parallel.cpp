// ordered_parallel_for: every item computed once, emitted in index order, any thread count.
#include "runtime/ordered_parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using cs::runtime::ordered_parallel_for;

TEST(OrderedParallel, EmitsInOrderForAnyThreadCount) {
  for (int threads : {0, 1, 2, 3, 8}) {
    for (size_t n : {0u, 1u, 5u, 97u}) {
      std::vector<int> value(n, -1);
      std::vector<std::atomic<int>> computed(n);
      std::vector<size_t> emitted;
      ordered_parallel_for(
          n, threads,
          [&](size_t i) {
            computed[i]++;
            value[i] = static_cast<int>(i * i);
          },
          [&](size_t i) {
            EXPECT_EQ(value[i], static_cast<int>(i * i));  // work(i) finished before emit(i)
            emitted.push_back(i);
          });
      ASSERT_EQ(emitted.size(), n) << "threads=" << threads;
      for (size_t i = 0; i < n; ++i) {
        EXPECT_EQ(emitted[i], i);
        EXPECT_EQ(computed[i].load(), 1);
      }
    }
  }
}

TEST(OrderedParallel, RethrowsAWorkErrorOnTheCaller) {
  std::vector<size_t> emitted;
  EXPECT_THROW(ordered_parallel_for(
                   100, 3,
                   [](size_t i) {
                     if (i == 50) throw std::runtime_error("item 50");
                   },
                   [&](size_t i) { emitted.push_back(i); }),
               std::runtime_error);
  // Items are emitted in order up to (never past) the failing one.
  ASSERT_FALSE(emitted.empty());
  EXPECT_LT(emitted.back(), 50u);
  for (size_t i = 0; i < emitted.size(); ++i) EXPECT_EQ(emitted[i], i);
}

TEST(OrderedParallel, OtherThreadsGoOnPastASlowItem) {
  // Item 0 is slow: it waits (at most 10 s) until 40 later items are done. A barrier per window,
  // or a window of a few items a thread, would stop the other threads long before that.
  constexpr size_t n = 200;
  std::atomic<size_t> done{0};
  size_t done_when_first_emitted = 0;
  std::vector<size_t> emitted;
  ordered_parallel_for(
      n, 3,
      [&](size_t i) {
        if (i == 0) {
          const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
          while (done.load() < 40 && std::chrono::steady_clock::now() < until)
            std::this_thread::yield();
        }
        done++;
      },
      [&](size_t i) {
        if (i == 0) done_when_first_emitted = done.load();
        emitted.push_back(i);
      });
  ASSERT_EQ(emitted.size(), n);
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(emitted[i], i);
  EXPECT_GE(done_when_first_emitted, 41u);
  EXPECT_LE(done_when_first_emitted, 48u);  // never more than 16 a thread ahead of item 0
}

TEST(OrderedParallel, RethrowsAnEmitErrorAndStopsTheWorkers) {
  std::atomic<size_t> computed{0};
  EXPECT_THROW(ordered_parallel_for(
                   1000, 2, [&](size_t) { computed++; },
                   [](size_t i) {
                     if (i == 3) throw std::runtime_error("emit 3");
                   }),
               std::runtime_error);
  EXPECT_LT(computed.load(), 1000u);
}

// With weights, the items claimed ahead of the next to emit weigh at most the budget together
// (each thread may still hold one item, however heavy): item 0 is slow, every item weighs 1 and
// the budget is 10, so at most 10 items (item 0 among them) are claimed before item 0 is emitted.
TEST(OrderedParallel, WeightsBoundWhatIsHeldAhead) {
  constexpr size_t n = 100;
  std::atomic<size_t> done{0};
  size_t done_when_first_emitted = 0;
  std::vector<size_t> emitted;
  cs::runtime::ItemWeight weight = [](size_t) { return size_t{1}; };
  ordered_parallel_for(
      n, 3,
      [&](size_t i) {
        if (i == 0) {
          const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
          while (done.load() < 9 && std::chrono::steady_clock::now() < until)
            std::this_thread::yield();
        }
        done++;
      },
      [&](size_t i) {
        if (i == 0) done_when_first_emitted = done.load();
        emitted.push_back(i);
      },
      weight, 10);
  ASSERT_EQ(emitted.size(), n);
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(emitted[i], i);
  EXPECT_EQ(done_when_first_emitted, 10u);
}

// Items heavier than the whole budget are still claimed (one per thread past the next to emit):
// nothing waits forever, the output is in order and every item is computed once.
TEST(OrderedParallel, ItemsHeavierThanTheBudgetStillRun) {
  constexpr size_t n = 300;
  std::vector<std::atomic<int>> computed(n);
  std::vector<size_t> emitted;
  cs::runtime::ItemWeight weight = [](size_t i) { return i % 5 == 0 ? size_t{100} : size_t{1}; };
  for (int threads : {2, 4}) {
    emitted.clear();
    for (auto& c : computed) c = 0;
    ordered_parallel_for(
        n, threads, [&](size_t i) { computed[i]++; }, [&](size_t i) { emitted.push_back(i); },
        weight, 20);
    ASSERT_EQ(emitted.size(), n);
    for (size_t i = 0; i < n; ++i) {
      EXPECT_EQ(emitted[i], i);
      EXPECT_EQ(computed[i].load(), 1);
    }
  }
}
