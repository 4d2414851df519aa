#include "runtime/cpu_cores.h"

#include <sched.h>

#include <algorithm>
#include <thread>

namespace cs::runtime {

int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

int node_threads(int per_process, int processes) {
  return std::max(1, std::min(usable_cores(), per_process * processes));
}

int threads_per_process(int requested, int processes) {
  if (requested > 0) return requested;
  // A process the launcher bound to some cores uses those; an unbound one its share of the node.
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int cores = usable_cores();
  return cores < hw ? cores : std::max(1, hw / std::max(1, processes));
}

}  // namespace cs::runtime
