#pragma once
// How many cores this process may run on: its CPU affinity mask (mpirun binds each process to a
// core by default), not the machine's core count.

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

}  // namespace cs::runtime
