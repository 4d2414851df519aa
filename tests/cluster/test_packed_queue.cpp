// cluster/packed_queue.h: the queue between a non-root process's parse threads and its sender
// holds a bounded number of bytes; a push past the bound waits for the sender (or for close).

#include "cluster/packed_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace cs::cluster {
namespace {

PackedRank rank_of(uint32_t index, size_t bytes) {
  return PackedRank{index, std::vector<char>(bytes, 'x')};
}

// Waits up to a few seconds for `flag`; true once it is set.
bool eventually(const std::atomic<bool>& flag) {
  for (int i = 0; i < 500 && !flag; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return flag;
}

TEST(PackedQueue, APushPastTheBoundWaitsForTheSender) {
  PackedQueue q(10);
  q.push(rank_of(0, 6));
  EXPECT_EQ(q.bytes(), 6u);
  std::atomic<bool> pushed{false};
  std::thread parser([&] {
    q.push(rank_of(1, 6));  // 12 bytes would be past the bound
    pushed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(pushed) << "the push did not wait for room";
  const std::vector<PackedRank> first = q.take_all();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].index, 0u);
  EXPECT_TRUE(eventually(pushed));
  parser.join();
  const std::vector<PackedRank> second = q.take_all();
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].index, 1u);
  EXPECT_EQ(q.bytes(), 0u);
}

TEST(PackedQueue, RanksWithinTheBoundAndALargeRankAlonePass) {
  PackedQueue q(10);
  q.push(rank_of(0, 4));
  q.push(rank_of(1, 6));  // exactly the bound
  EXPECT_EQ(q.bytes(), 10u);
  EXPECT_EQ(q.take_all().size(), 2u);
  q.push(rank_of(2, 1000));  // larger than the bound, into an empty queue
  const std::vector<PackedRank> big = q.take_all();
  ASSERT_EQ(big.size(), 1u);
  EXPECT_EQ(big[0].bytes.size(), 1000u);
}

TEST(PackedQueue, CloseReleasesAWaitingPushAndLaterOnesNeverWait) {
  PackedQueue q(10);
  q.push(rank_of(0, 10));
  std::atomic<bool> pushed{false};
  std::thread parser([&] {
    q.push(rank_of(1, 10));
    pushed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(pushed);
  {
    PackedQueueCloser closer(q);  // the sender leaves this scope (an error, an interrupt)
  }
  EXPECT_TRUE(eventually(pushed));
  parser.join();
  q.push(rank_of(2, 10));  // closed: does not wait
  EXPECT_EQ(q.take_all().size(), 3u);
}

}  // namespace
}  // namespace cs::cluster
