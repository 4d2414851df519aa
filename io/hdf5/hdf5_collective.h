#pragma once
// What io/hdf5/ needs from MPI to write one HDF5 file from every process (parallel HDF5 over
// MPI-IO), given without MPI: io/hdf5/ neither links nor calls MPI. The caller that holds the MPI
// session (cluster/, through mpi/) implements it; io/hdf5/ uses it to open the file with HDF5's
// MPI-IO driver and to agree on each table's shape before the collective writes
// (io/hdf5/hdf5_collective_table.h).
//
//   class MyCollective : public io::Hdf5Collective { ... };   // over an MPI communicator
//   auto h5 = io::Hdf5File::create(path, diag, &coll);       // every process, collectively

#include "io/collective.h"

namespace cs::io {

// io::Collective (process count, agreements) and the MPI-IO handles HDF5's driver opens the file
// with.
class Hdf5Collective : public Collective {
 public:
  // The MPI communicator and info object HDF5's MPI-IO driver is opened with, opaque here: the
  // addresses of an MPI_Comm and an MPI_Info (io/hdf5/hdf5_mpio.cpp reads them as such, the one
  // place io/hdf5/ names an MPI type, through <hdf5.h>).
  virtual const void* mpi_comm() const = 0;
  virtual const void* mpi_info() const = 0;
};

}  // namespace cs::io
