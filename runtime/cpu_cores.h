#pragma once
// How many cores this process may run on: its CPU affinity mask (mpirun binds each process to a
// core by default), not the machine's core count.

#include <vector>

namespace cs::runtime {

// Cores in this process's affinity mask; std::thread::hardware_concurrency() when the mask
// cannot be read; at least 1.
int usable_cores();

// Threads the root may use while the other processes on its node sleep: `per_process` threads
// for each of the node's `processes`, capped by usable_cores(); at least 1.
// Example: 2 threads x 4 processes on a 16-core affinity mask -> 8.
int node_threads(int per_process, int processes);

// The threads one of a node's `processes` works with: `requested` when positive; else the cores
// of its affinity mask when the launcher bound it to fewer than the machine has, else its share
// of the machine's cores. At least 1. Example: 0 requested, 2 processes, unbound, 16 cores -> 8.
int threads_per_process(int requested, int processes);

// The CPUs (ids) the calling thread may run on.
std::vector<int> affinity_cpus();

// Sets the mask of every thread of this process to `cpus` (threads started later inherit their
// starter's). False when no thread's mask could be set.
bool set_affinity(const std::vector<int>& cpus);

// While alive, every thread of this process may also run on `cpus` (the union with the mask the
// constructing thread had); the end sets that mask back on every thread. The root's analyses use
// it for the cores of the other processes of its node, which wait meanwhile: a launcher that
// binds each process to a core (mpirun's default for 2 processes) would otherwise leave the root
// one core for all of them.
class WiderAffinity {
 public:
  explicit WiderAffinity(const std::vector<int>& cpus);
  ~WiderAffinity();
  WiderAffinity(const WiderAffinity&) = delete;
  WiderAffinity& operator=(const WiderAffinity&) = delete;
  // True when `cpus` added a CPU and the masks were set.
  bool widened() const { return widened_; }

 private:
  std::vector<int> before_;
  bool widened_ = false;
};

}  // namespace cs::runtime
