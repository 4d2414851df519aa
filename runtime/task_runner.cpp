#include "runtime/task_runner.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <utility>

namespace cs::runtime {

void parallel_for(size_t n, int threads, const std::function<void(size_t)>& body) {
  if (threads <= 1 || n <= 1) {
    for (size_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mu;
  std::exception_ptr error;  // the first one
  auto worker = [&] {
    for (size_t i; !failed.load(std::memory_order_relaxed) && (i = next.fetch_add(1)) < n;) {
      try {
        body(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
  };
  {
    TaskGroup group;
    const size_t extra = std::min(static_cast<size_t>(threads), n) - 1;
    for (size_t t = 0; t < extra; ++t) group.run(worker);
    worker();
    group.wait();  // the workers catch their own errors: nothing is thrown here
  }
  if (error) std::rethrow_exception(error);
}

TaskGroup::~TaskGroup() {
  join_all();
}

void TaskGroup::run(std::function<void()> task) {
  threads_.emplace_back([this, task = std::move(task)] {
    try {
      task();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error_) error_ = std::current_exception();
    }
  });
}

void TaskGroup::wait() {
  join_all();
  std::exception_ptr error;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::swap(error, error_);
  }
  if (error) std::rethrow_exception(error);
}

void TaskGroup::join_all() noexcept {
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

std::vector<size_t> balanced_runs(const std::vector<size_t>& weights, size_t parts) {
  std::vector<size_t> cuts{0};
  const size_t n = weights.size();
  if (n == 0) return cuts;
  parts = std::max<size_t>(1, std::min(parts, n));
  uint64_t total = 0;
  for (size_t w : weights) total += w;
  // Run k ends where the weight so far first reaches k/parts of the total.
  uint64_t so_far = 0;
  for (size_t i = 0; i + 1 < n && cuts.size() < parts; ++i) {
    so_far += weights[i];
    if (so_far * parts >= total * cuts.size()) cuts.push_back(i + 1);
  }
  cuts.push_back(n);
  return cuts;
}

}  // namespace cs::runtime
