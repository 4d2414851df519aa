#pragma once
// The one way clusterscope runs work on threads: parallel_for over items, and TaskGroup for a few
// tasks at once. Both propagate the first error: an exception in a task is rethrown once in the
// caller, after every thread has stopped (no thread is left running, no exception is lost to
// std::terminate).
//
//   runtime::parallel_for(ranks.size(), threads, [&](size_t i) { ranks[i].communication.unpack();
//   });
//
//   runtime::TaskGroup group;
//   group.run([&] { write_hdf5(); });  // on a thread of its own
//   write_csv();                        // meanwhile, on the caller
//   group.wait();                       // joins; rethrows write_hdf5's exception, if any

#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cs::runtime {

// Runs body(i) for every i in [0, n) on up to `threads` threads (the caller's and threads - 1 new
// ones; fewer when n is smaller), items claimed in increasing order. After a body throws, no new
// item is started; once every thread has stopped, that first exception is rethrown here (once;
// later ones are dropped). threads <= 1 runs the items in order on the caller.
void parallel_for(size_t n, int threads, const std::function<void(size_t)>& body);

// Cuts items of the given weights into up to `parts` runs of consecutive items of about equal
// weight, for parallel_for over runs: the first item of each run, then weights.size(); no run is
// empty (an item heavier than a run's share makes a run of its own). {0} for no items.
//   balanced_runs({5, 1, 1, 5}, 2) == {0, 2, 4}
std::vector<size_t> balanced_runs(const std::vector<size_t>& weights, size_t parts);

// Tasks run on threads of their own and joined together. wait() joins them all and rethrows the
// first exception a task threw (once); the destructor joins too (dropping an error wait() did not
// rethrow), so leaving a scope by an exception never leaves a thread running.
class TaskGroup {
 public:
  TaskGroup() = default;
  TaskGroup(const TaskGroup&) = delete;
  TaskGroup& operator=(const TaskGroup&) = delete;
  ~TaskGroup();

  // Starts `task` on a new thread.
  void run(std::function<void()> task);
  // Joins every task started so far; rethrows the first exception one of them threw.
  void wait();

 private:
  void join_all() noexcept;

  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::exception_ptr error_;  // the first one
};

}  // namespace cs::runtime
