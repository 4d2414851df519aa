#include "runtime/ordered_parallel.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/task_runner.h"

namespace cs::runtime {

namespace {

// Shared state of one ordered_parallel_for call. Items are claimed in index order, never more
// than `window` ahead of the next one to emit; the caller emits each in turn as soon as it is
// done and works on items itself while the next one to emit is still being computed elsewhere.
class Pipeline {
 public:
  Pipeline(size_t n, size_t window, const std::function<void(size_t)>& work,
           const ItemWeight* weight, size_t max_weight, size_t threads)
      : n_(n),
        window_(window),
        work_(work),
        weight_(weight),
        max_weight_(max_weight),
        threads_(threads),
        done_(n, 0) {}

  // Worker threads: claim and compute items until there are none left or an item failed.
  void work_loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || next_ >= n_ || claimable(); });
      if (stop_ || next_ >= n_) return;
      claim_and_compute(lock);
    }
  }

  // The caller: emits every item in order, computing claimable items while it waits. Returns
  // the first work error (nullptr when none); items from the failing one on are not emitted.
  std::exception_ptr emit_loop(const std::function<void(size_t)>& emit) {
    std::unique_lock<std::mutex> lock(mu_);
    while (emitted_ < n_ && !stop_) {
      if (done_[emitted_]) {
        const size_t i = emitted_;
        lock.unlock();
        emit(i);
        lock.lock();
        ++emitted_;
        if (weight_) ahead_weight_ -= item_weight_[i];
        cv_.notify_all();  // the window moved
      } else if (next_ < n_ && claimable()) {
        claim_and_compute(lock);
      } else {
        cv_.wait(lock, [&] { return stop_ || done_[emitted_]; });
      }
    }
    return error_;
  }

  // Stops the workers (after an emit error): they finish the item in hand and return.
  void stop() {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    cv_.notify_all();
  }

 private:
  // Whether the next item may be claimed now: within the window of items and, with weights,
  // within the weight allowed ahead of the writer, or among the first `threads_` items past it
  // (every thread may always hold one item, however heavy).
  bool claimable() const {
    if (next_ >= emitted_ + window_) return false;
    if (!weight_ || next_ < emitted_ + threads_) return true;
    return ahead_weight_ + (*weight_)(next_) <= max_weight_;
  }

  // Claims the next item (its weight counted until it is emitted) and computes it.
  void claim_and_compute(std::unique_lock<std::mutex>& lock) {
    const size_t i = next_++;
    if (weight_) {
      if (item_weight_.empty()) item_weight_.resize(n_, 0);
      item_weight_[i] = (*weight_)(i);
      ahead_weight_ += item_weight_[i];
    }
    compute(i, lock);
  }

  // Runs work(i) without the lock; marks it done, or records the first error and stops all.
  void compute(size_t i, std::unique_lock<std::mutex>& lock) {
    lock.unlock();
    std::exception_ptr failure;
    try {
      work_(i);
    } catch (...) {
      failure = std::current_exception();
    }
    lock.lock();
    if (failure) {
      if (!error_) error_ = failure;
      stop_ = true;
    } else {
      done_[i] = 1;
    }
    cv_.notify_all();
  }

  const size_t n_, window_;
  const std::function<void(size_t)>& work_;
  const ItemWeight* weight_;  // null: no weights
  const size_t max_weight_, threads_;
  std::vector<size_t> item_weight_;  // of each claimed item
  size_t ahead_weight_ = 0;          // of the items claimed and not yet emitted
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<char> done_;
  size_t next_ = 0;     // the next item to claim
  size_t emitted_ = 0;  // items emitted so far
  bool stop_ = false;
  std::exception_ptr error_;
};

// ordered_parallel_for, with item weights when `weight` is set.
void run_ordered(size_t n, int threads, const std::function<void(size_t)>& work,
                 const std::function<void(size_t)>& emit, const ItemWeight* weight,
                 size_t max_weight_ahead) {
  if (threads <= 1 || n <= 1) {
    for (size_t i = 0; i < n; ++i) {
      work(i);
      emit(i);
    }
    return;
  }
  // Enough to keep every thread busy past one slow item: in the matrix a group tuple of 8 ranks
  // takes 25x as long as the 4-rank ones around it (a window of 4 left a thread idle 60% of the
  // time there).
  constexpr size_t kItemsPerThread = 16;
  Pipeline pipe(n, static_cast<size_t>(threads) * kItemsPerThread, work, weight, max_weight_ahead,
                static_cast<size_t>(threads));
  runtime::TaskGroup pool;  // work_loop keeps work errors in the pipeline: wait() throws none
  const size_t extra = std::min<size_t>(static_cast<size_t>(threads), n) - 1;
  for (size_t t = 0; t < extra; ++t) pool.run([&] { pipe.work_loop(); });
  std::exception_ptr error;
  try {
    error = pipe.emit_loop(emit);
  } catch (...) {  // from emit
    error = std::current_exception();
  }
  pipe.stop();
  pool.wait();
  if (error) std::rethrow_exception(error);
}

}  // namespace

void ordered_parallel_for(size_t n, int threads, const std::function<void(size_t)>& work,
                          const std::function<void(size_t)>& emit) {
  run_ordered(n, threads, work, emit, nullptr, 0);
}

void ordered_parallel_for(size_t n, int threads, const std::function<void(size_t)>& work,
                          const std::function<void(size_t)>& emit, const ItemWeight& weight,
                          size_t max_weight_ahead) {
  run_ordered(n, threads, work, emit, &weight, max_weight_ahead);
}

void run_both(bool parallel, const std::function<void()>& a, const std::function<void()>& b) {
  if (!parallel) {
    a();
    b();
    return;
  }
  runtime::TaskGroup group;
  group.run(a);
  std::exception_ptr b_error;
  try {
    b();
  } catch (...) {
    b_error = std::current_exception();
  }
  group.wait();  // a's error first
  if (b_error) std::rethrow_exception(b_error);
}

}  // namespace cs::runtime
