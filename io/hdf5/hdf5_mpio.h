#pragma once
// HDF5's MPI-IO driver and collective transfers (parallel HDF5, Debian's libhdf5-openmpi): the
// one place io/hdf5/ names MPI's types (through <hdf5.h>, which the parallel build makes include
// <mpi.h>); it calls HDF5 only, never MPI.

#include <hdf5.h>

#include "io/hdf5/hdf5_collective.h"
#include "io/hdf5/hdf5_handle.h"

namespace cs::io {

// Sets the MPI-IO driver on file access property list `fapl` with `coll`'s communicator
// (H5Pset_fapl_mpio). False on an HDF5 error.
bool hdf5_set_mpio_driver(hid_t fapl, const Hdf5Collective& coll);

// A dataset transfer property list for collective MPI-IO (H5FD_MPIO_COLLECTIVE): every process
// takes part in each H5Dwrite, as HDF5 requires for filtered (compressed) datasets. An invalid
// handle on an HDF5 error.
Hdf5Plist hdf5_collective_transfer();

}  // namespace cs::io
