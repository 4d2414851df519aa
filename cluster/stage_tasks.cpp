#include "cluster/stage_tasks.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>

#include "runtime/allocator_tuning.h"
#include "runtime/progress.h"
#include "runtime/task_runner.h"

namespace cs::cluster {

// Runs `lead` on the calling thread while `tasks` start (costliest first) on up to threads - 1
// other threads; then the calling thread takes tasks too. The tasks marked alone_first run
// first, together (beside `lead`), and the others once those have finished. Times each task.
// Rethrows the first exception (of `lead`, then of the tasks in order) once all have finished.
void run_tasks(std::vector<Task>& tasks, int threads, const std::function<void()>& lead) {
  std::vector<std::exception_ptr> errors(tasks.size() + 1);
  auto run_one = [&](size_t i) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu = runtime::thread_cpu_seconds();
    runtime::prefer_huge_pages();  // the heap this thread fills (runtime/allocator_tuning.h)
    try {
      tasks[i].run();
    } catch (...) {
      errors[i + 1] = std::current_exception();
    }
    tasks[i].cpu_s = runtime::thread_cpu_seconds() - cpu;
    tasks[i].wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  bool lead_pending = static_cast<bool>(lead);
  for (const bool first_round : {true, false}) {
    std::vector<size_t> order;
    for (size_t i = 0; i < tasks.size(); ++i)
      if (tasks[i].alone_first == first_round) order.push_back(i);
    if (first_round && order.empty()) continue;  // `lead` then runs beside the others
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return tasks[a].cost > tasks[b].cost; });
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t k; (k = next.fetch_add(1)) < order.size();) run_one(order[k]);
    };
    runtime::TaskGroup pool;  // run_one keeps each task's error: nothing is thrown by wait()
    // The calling thread is busy with `lead` first: the tasks then get threads - 1 of their own.
    const int n = static_cast<int>(order.size());
    const int extra = lead_pending ? std::min(threads - 1, n) : std::min(threads, n) - 1;
    for (int t = 0; t < extra; ++t) pool.run(worker);
    if (lead_pending) {
      try {
        lead();
      } catch (...) {
        errors[0] = std::current_exception();
      }
      lead_pending = false;
    }
    worker();
    pool.wait();
    if (first_round) runtime::release_freed_memory();
  }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace cs::cluster
