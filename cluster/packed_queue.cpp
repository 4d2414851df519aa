#include "cluster/packed_queue.h"

#include <utility>

namespace cs::cluster {

void PackedQueue::push(PackedRank&& p) {
  std::unique_lock<std::mutex> lock(mu_);
  const size_t size = p.bytes.size();
  room_.wait(lock, [&] { return closed_ || items_.empty() || bytes_ + size <= max_bytes_; });
  bytes_ += size;
  items_.push_back(std::move(p));
}

std::vector<PackedRank> PackedQueue::take_all() {
  std::vector<PackedRank> out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    out = std::exchange(items_, {});
    bytes_ = 0;
  }
  room_.notify_all();
  return out;
}

void PackedQueue::close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  room_.notify_all();
}

size_t PackedQueue::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

}  // namespace cs::cluster
