#include "cluster/ordered_parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

namespace cs::cluster {

void ordered_parallel_for(size_t n, int threads, const std::function<void(size_t)>& work,
                          const std::function<void(size_t)>& emit) {
  if (threads <= 1 || n <= 1) {
    for (size_t i = 0; i < n; ++i) {
      work(i);
      emit(i);
    }
    return;
  }
  constexpr size_t kItemsPerThread = 4;  // enough to balance uneven items within a window
  const size_t window = static_cast<size_t>(threads) * kItemsPerThread;
  for (size_t begin = 0; begin < n; begin += window) {
    const size_t end = std::min(n, begin + window);
    std::atomic<size_t> next{begin};
    std::exception_ptr error;
    std::atomic<bool> failed{false};
    auto worker = [&] {
      for (size_t i; (i = next.fetch_add(1)) < end;) {
        try {
          work(i);
        } catch (...) {
          if (!failed.exchange(true)) error = std::current_exception();
        }
      }
    };
    std::vector<std::thread> pool;
    const size_t extra = std::min<size_t>(static_cast<size_t>(threads), end - begin) - 1;
    for (size_t t = 0; t < extra; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    if (error) std::rethrow_exception(error);
    for (size_t i = begin; i < end; ++i) emit(i);
  }
}

}  // namespace cs::cluster
