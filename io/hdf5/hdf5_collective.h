#pragma once
// What io/hdf5/ needs from MPI to write one HDF5 file from every process (parallel HDF5 over
// MPI-IO), given without MPI: io/hdf5/ neither links nor calls MPI. The caller that holds the MPI
// session (cluster/, through mpi/) implements it; io/hdf5/ uses it to open the file with HDF5's
// MPI-IO driver and to agree on each table's shape before the collective writes
// (io/hdf5/hdf5_collective_table.h).
//
//   class MyCollective : public io::Hdf5Collective { ... };   // over an MPI communicator
//   auto h5 = io::Hdf5File::create(path, diag, &coll);       // every process, collectively

#include <cstdint>
#include <vector>

namespace cs::io {

class Hdf5Collective {
 public:
  virtual ~Hdf5Collective() = default;

  // This process's index (0 = the root, which owns the file: its name, its removal on failure,
  // its publication) and the number of processes.
  virtual int process() const = 0;
  virtual int processes() const = 0;

  // The MPI communicator and info object HDF5's MPI-IO driver is opened with, opaque here: the
  // addresses of an MPI_Comm and an MPI_Info (io/hdf5/hdf5_mpio.cpp reads them as such, the one
  // place io/hdf5/ names an MPI type, through <hdf5.h>).
  virtual const void* mpi_comm() const = 0;
  virtual const void* mpi_info() const = 0;

  // Collective: every process's `mine`, in process order, on every process.
  virtual std::vector<std::vector<uint64_t>> all_gather(
      const std::vector<uint64_t>& mine) const = 0;

  // Collective: the element-wise maximum of `values` over processes, on every process (every
  // process passes as many values).
  virtual std::vector<uint64_t> all_max(const std::vector<uint64_t>& values) const = 0;
};

}  // namespace cs::io
