#pragma once
// Hands packed ranks from a non-root process's parse threads to the thread that sends them to the
// root (cluster/cluster_loader.cpp), holding at most a bounded number of bytes: a parse thread
// that would go past the bound waits until the sender has taken what is queued. Without the
// bound, a process that parses faster than the root takes its batches queued every rank of its
// share (16,384 ranks under `mpirun -np 2`: the other process peaked at 268-346 MB, more than the
// root; docs/root_memory.md "Done: the other processes' queue bounded").
//
//   PackedQueue q(8 << 20);
//   // parse threads:  q.push({index, std::move(bytes)});   // waits while the queue is full
//   // sender thread:  for (PackedRank& p : q.take_all()) send(p);
//   // on the way out: q.close();   // a waiting push returns; later pushes never wait

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace cs::cluster {

// A packed rank on its way to the root: its position in the sender's share, and its bytes.
struct PackedRank {
  uint32_t index = 0;
  std::vector<char> bytes;
};

class PackedQueue {
 public:
  // At most `max_bytes` of ranks queued; a rank larger than that alone still passes (once the
  // queue is empty).
  explicit PackedQueue(size_t max_bytes) : max_bytes_(max_bytes) {}

  // Queues `p`, first waiting while the queue holds ranks and `p` would take it past the bound
  // (not once closed).
  void push(PackedRank&& p);
  // Everything queued, in the order pushed; wakes the pushes waiting for room.
  std::vector<PackedRank> take_all();
  // Stops every wait, now and later (the sender is gone: an error, an interrupt).
  void close();
  // Bytes queued now.
  size_t bytes() const;

 private:
  const size_t max_bytes_;
  mutable std::mutex mu_;
  std::condition_variable room_;
  std::vector<PackedRank> items_;
  size_t bytes_ = 0;
  bool closed_ = false;
};

// Closes a queue when it goes out of scope, so that no parse thread is left waiting for a sender
// that has stopped.
class PackedQueueCloser {
 public:
  explicit PackedQueueCloser(PackedQueue& q) : q_(q) {}
  ~PackedQueueCloser() { q_.close(); }
  PackedQueueCloser(const PackedQueueCloser&) = delete;
  PackedQueueCloser& operator=(const PackedQueueCloser&) = delete;

 private:
  PackedQueue& q_;
};

}  // namespace cs::cluster
