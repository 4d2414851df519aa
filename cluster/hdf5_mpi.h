#pragma once
// The seam between mpi/ and io/hdf5/ for cluster_analysis.h5 written by every process: io/hdf5/
// asks for an io::Hdf5Collective (no MPI in its headers), mpi/ offers the collectives and the
// MPI-IO handles (no HDF5 in its headers); this adapter joins them.
//
//   MpiHdf5Collective coll(mpi);
//   auto h5 = io::Hdf5File::create(path, diag, &coll);  // MPI-IO with 2+ processes, else serial

#include "io/hdf5/hdf5_collective.h"
#include "mpi/mpi_comm.h"

namespace cs::cluster {

class MpiHdf5Collective : public io::Hdf5Collective {
 public:
  explicit MpiHdf5Collective(const mpi::MpiSession& mpi)
      : mpi_(mpi), handles_(mpi.mpi_io_handles()) {}
  int process() const override { return mpi_.rank(); }
  int processes() const override { return mpi_.size(); }
  const void* mpi_comm() const override { return handles_.comm; }
  const void* mpi_info() const override { return handles_.info; }
  std::vector<std::vector<uint64_t>> all_gather(const std::vector<uint64_t>& mine) const override {
    return mpi_.all_gather(mine);
  }
  std::vector<uint64_t> all_max(const std::vector<uint64_t>& values) const override {
    return mpi_.all_max(values);
  }

 private:
  const mpi::MpiSession& mpi_;
  mpi::MpiSession::MpiIoHandles handles_;
};

}  // namespace cs::cluster
