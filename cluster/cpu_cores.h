#pragma once
// How many cores this process may run on: its CPU affinity mask (mpirun binds each process to a
// core by default), not the machine's core count.

namespace cs::cluster {

// Cores in this process's affinity mask; std::thread::hardware_concurrency() when the mask
// cannot be read; at least 1.
int usable_cores();

}  // namespace cs::cluster
