#pragma once
// The MpiSession of a test that calls the MPI-aware code directly (run_cluster, load_cluster,
// the recipes' runners) in its own process.

#include "mpi/mpi_comm.h"

namespace cs::test {

// The test process's one MpiSession: without a launcher, one process and no MPI.
inline mpi::MpiSession& one_process_session() {
  int argc = 1;
  static char prog[] = "test";
  static char* args[] = {prog, nullptr};
  char** argv = args;
  static mpi::MpiSession mpi(argc, argv);
  return mpi;
}

}  // namespace cs::test
