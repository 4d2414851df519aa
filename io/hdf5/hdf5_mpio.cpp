#include "io/hdf5/hdf5_mpio.h"

namespace cs::io {

bool hdf5_set_mpio_driver(hid_t fapl, const Hdf5Collective& coll) {
  const auto* comm = static_cast<const MPI_Comm*>(coll.mpi_comm());
  const auto* info = static_cast<const MPI_Info*>(coll.mpi_info());
  if (!comm || !info) return false;
  return H5Pset_fapl_mpio(fapl, *comm, *info) >= 0;
}

Hdf5Plist hdf5_collective_transfer() {
  Hdf5Plist dxpl(H5Pcreate(H5P_DATASET_XFER));
  if (dxpl && H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE) < 0) return Hdf5Plist();
  return dxpl;
}

}  // namespace cs::io
