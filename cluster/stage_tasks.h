#pragma once
// The tasks of the analyses' stages (cluster/cluster_outputs.cpp's stage list) and how they run:
// a few named steps at once over the root's threads, costliest first, each timed, errors held
// until all have run.
//
//   std::vector<Task> tasks{{"operators", 0.1, [&] { ... }}, {"memory", 0.1, [&] { ... }}};
//   run_tasks(tasks, threads, nullptr);

#include <functional>
#include <string>
#include <vector>

namespace cs::cluster {

struct Task {
  std::string name;
  // Relative cost, for the start order only: the costliest tasks start first, so the last one to
  // finish is a short one (longest-processing-time-first). Measured CPU seconds at 1,024 ranks:
  // cluster_communication.json 1.0, the communication ops and bandwidth tables 0.4 and 0.3,
  // others below.
  double cost = 0.1;
  std::function<void()> run;
  // Runs before the other tasks start (with the other such tasks), the freed pages given back
  // between: what it holds never meets the others' working state.
  bool alone_first = false;
  double wall_s = 0, cpu_s = 0;  // measured
};

// Runs `lead` on the calling thread while `tasks` start (costliest first) on up to threads - 1
// other threads; then the calling thread takes tasks too. The tasks marked alone_first run
// first, together (beside `lead`), and the others once those have finished. Times each task.
// Rethrows the first exception (of `lead`, then of the tasks in order) once all have finished.
void run_tasks(std::vector<Task>& tasks, int threads, const std::function<void()>& lead);

}  // namespace cs::cluster
