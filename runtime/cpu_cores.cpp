#include "runtime/cpu_cores.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
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

std::vector<int> affinity_cpus() {
  std::vector<int> out;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

bool set_affinity(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (const int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  if (CPU_COUNT(&set) == 0) return false;
  bool any = false;
  std::error_code ec;
  // sched_setaffinity sets one thread's mask: every thread listed for the process.
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    const auto tid = static_cast<pid_t>(std::atol(task.path().filename().c_str()));
    if (tid > 0 && sched_setaffinity(tid, sizeof set, &set) == 0) any = true;
  }
  return any;
}

WiderAffinity::WiderAffinity(const std::vector<int>& cpus) : before_(affinity_cpus()) {
  if (before_.empty()) return;  // the mask could not be read: left alone
  std::vector<int> wider = before_;
  wider.insert(wider.end(), cpus.begin(), cpus.end());
  std::sort(wider.begin(), wider.end());
  wider.erase(std::unique(wider.begin(), wider.end()), wider.end());
  if (wider.size() > before_.size()) widened_ = set_affinity(wider);
}

WiderAffinity::~WiderAffinity() {
  if (widened_) set_affinity(before_);
}

}  // namespace cs::runtime
