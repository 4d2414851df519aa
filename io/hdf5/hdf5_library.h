#pragma once
// The HDF5 library, loaded on first use instead of at every start of the binary.
//
// Debian's HDF5 (the Open MPI build) brings about 35 shared libraries with it (curl, GnuTLS,
// Kerberos, LDAP, OpenSSL, ...): linked normally, loading them cost every run of clusterscope
// about 25 ms of CPU and 35 ms of wall time, also the runs that write no HDF5 file (the recipes,
// `top`, `generate`). So the binary does not link HDF5: hdf5_library.cpp defines the HDF5
// functions io/hdf5/ calls, and the first of them to be called loads the library with dlopen()
// and forwards to it. The library starts as clusterscope always starts it: without its exit-time
// cleanup and with its automatic error printing off (io/hdf5/hdf5_error.h says why).
//
//   hdf5_load_library();   // under mpirun: before MPI_Init, so HDF5 adds no MPI_Finalize hook
//   std::async(std::launch::async, hdf5_load_library);  // `cluster` without a launcher: loaded
//                                    // on a thread of its own while the ranks are parsed
//   if (auto why = hdf5_library_error(); !why.empty()) ...   // the library could not be loaded
//
// CLUSTERSCOPE_HDF5_LIBRARY=/path/to/libhdf5.so loads that file instead of the library the
// build was made against (CS_HDF5_SONAME, found on the system's library path).
// A program that also links HDF5 itself (the tests) uses the same, already loaded library.

#include <string>

namespace cs::io {

// Loads and starts the HDF5 library now, once per process; later calls do nothing. True when it
// is loaded. Safe to call from any thread.
bool hdf5_load_library();

// Why the HDF5 library cannot be loaded (the file tried and the loader's message), or "" when
// it is loaded. Loads it first if no call has yet.
std::string hdf5_library_error();

}  // namespace cs::io
