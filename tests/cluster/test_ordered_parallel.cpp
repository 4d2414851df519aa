// ordered_parallel_for: every item computed once, emitted in index order, any thread count.
#include "cluster/ordered_parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

using cs::cluster::ordered_parallel_for;

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
  // Windows before the failing one were emitted in full, nothing after it.
  ASSERT_FALSE(emitted.empty());
  EXPECT_LT(emitted.back(), 50u);
  for (size_t i = 0; i < emitted.size(); ++i) EXPECT_EQ(emitted[i], i);
}
