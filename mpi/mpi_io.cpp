// The MpiSession calls the parallel HDF5 writes need (mpi/mpi_comm.h): plain MPI collectives,
// and MPI-IO's communicator handed out opaque.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "mpi/mpi_comm.h"

namespace cs::mpi {

std::vector<std::vector<uint64_t>> MpiSession::all_gather(const std::vector<uint64_t>& mine) const {
  if (!uses_mpi_ || size_ == 1) return {mine};
  const int n = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<size_t>(size_)), offsets(static_cast<size_t>(size_));
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  for (int p = 0; p < size_; ++p) {
    offsets[static_cast<size_t>(p)] = total;
    total += counts[static_cast<size_t>(p)];
  }
  std::vector<uint64_t> flat(static_cast<size_t>(total));
  MPI_Allgatherv(mine.data(), n, MPI_UINT64_T, flat.data(), counts.data(), offsets.data(),
                 MPI_UINT64_T, MPI_COMM_WORLD);
  std::vector<std::vector<uint64_t>> out(static_cast<size_t>(size_));
  for (size_t p = 0; p < out.size(); ++p)
    out[p].assign(flat.begin() + offsets[p], flat.begin() + offsets[p] + counts[p]);
  return out;
}

std::vector<uint64_t> MpiSession::all_max(const std::vector<uint64_t>& values) const {
  if (!uses_mpi_ || size_ == 1 || values.empty()) return values;
  std::vector<uint64_t> out(values.size());
  MPI_Allreduce(values.data(), out.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_MAX,
                MPI_COMM_WORLD);
  return out;
}

MpiSession::MpiIoHandles MpiSession::mpi_io_handles() const {
  if (!uses_mpi_) return {};
  static const MPI_Comm comm = MPI_COMM_WORLD;
  static const MPI_Info info = MPI_INFO_NULL;
  return {&comm, &info};
}

}  // namespace cs::mpi
