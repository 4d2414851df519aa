#pragma once
// HDF5 errors as text for Diagnostics instead of HDF5's own printing to stderr.
//
//   hdf5_silence_errors();                       // once, before the first HDF5 call
//   if (H5Fcreate(...) < 0) diag.error(path, 0, "cannot create HDF5 file: " + hdf5_error_text());

#include <string>

namespace cs::io {

// Turns off HDF5's automatic error printing for the calling thread's default error stack
// (H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr)). Cheap; safe to call many times.
void hdf5_silence_errors();

// Loads and starts the HDF5 library now (io/hdf5/hdf5_library.h), with its exit-time cleanup
// off and its automatic error printing off; otherwise the first HDF5 call does, the same way.
// Under mpirun call it before MPI_Init: HDF5 started while MPI is up adds an MPI_Finalize hook
// that runs the cleanup anyway. HDF5 1.10 frees a file whose H5Fclose failed (a full disk) but
// keeps its id, and that cleanup then closes it again: SIGSEGV at exit (rc 139, signal 11 under
// mpirun). Every file is closed by its writer, so nothing is lost without it.
void hdf5_start_without_exit_cleanup();

// The current HDF5 error stack as one line, outermost (API) message first, then the most
// specific one when it differs, e.g. "unable to create file: unable to open file: name =
// '/x/y.h5.tmp', errno = 2, error message = 'No such file or directory', ...". Clears the stack.
// Returns "unknown HDF5 error" when the stack is empty, and why the library cannot be loaded
// when it cannot (io/hdf5/hdf5_library.h).
std::string hdf5_error_text();

}  // namespace cs::io
