// The HDF5 functions io/hdf5/ calls, defined here: each loads the library on first use
// (io/hdf5/hdf5_library.h) and forwards to it. Their declarations come from <hdf5.h>, so a
// signature that does not match the library's headers does not compile. H5Pset_fapl_mpio's
// parameters are of MPI's types (MPI_Comm, MPI_Info), from Open MPI's header, which the parallel
// HDF5's <hdf5.h> includes: only the types, no MPI function is called or linked here.
#include "io/hdf5/hdf5_library.h"

#include <dlfcn.h>
#include <hdf5.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace {

// Every HDF5 function io/hdf5/ calls: X(return type, name, (parameters), (arguments), value
// returned when the library cannot be loaded).
#define CS_HDF5_FUNCTIONS(X)                                                                       \
  X(herr_t, H5Aclose, (hid_t a), (a), -1)                                                          \
  X(hid_t, H5Acreate2, (hid_t a, const char* b, hid_t c, hid_t d, hid_t e, hid_t f),               \
    (a, b, c, d, e, f), H5I_INVALID_HID)                                                           \
  X(herr_t, H5Adelete, (hid_t a, const char* b), (a, b), -1)                                       \
  X(htri_t, H5Aexists, (hid_t a, const char* b), (a, b), -1)                                       \
  X(herr_t, H5Awrite, (hid_t a, hid_t b, const void* c), (a, b, c), -1)                            \
  X(herr_t, H5Dclose, (hid_t a), (a), -1)                                                          \
  X(hid_t, H5Dcreate2, (hid_t a, const char* b, hid_t c, hid_t d, hid_t e, hid_t f, hid_t g),      \
    (a, b, c, d, e, f, g), H5I_INVALID_HID)                                                        \
  X(hid_t, H5Dget_space, (hid_t a), (a), H5I_INVALID_HID)                                          \
  X(herr_t, H5Dset_extent, (hid_t a, const hsize_t* b), (a, b), -1)                                \
  X(herr_t, H5Dwrite, (hid_t a, hid_t b, hid_t c, hid_t d, hid_t e, const void* f),                \
    (a, b, c, d, e, f), -1)                                                                        \
  X(herr_t, H5Dwrite_chunk,                                                                        \
    (hid_t a, hid_t b, uint32_t c, const hsize_t* d, size_t e, const void* f), (a, b, c, d, e, f), \
    -1)                                                                                            \
  X(herr_t, H5Eclear2, (hid_t a), (a), -1)                                                         \
  X(herr_t, H5Eset_auto2, (hid_t a, H5E_auto2_t b, void* c), (a, b, c), -1)                        \
  X(herr_t, H5Ewalk2, (hid_t a, H5E_direction_t b, H5E_walk2_t c, void* d), (a, b, c, d), -1)      \
  X(herr_t, H5Fclose, (hid_t a), (a), -1)                                                          \
  X(hid_t, H5Fcreate, (const char* a, unsigned b, hid_t c, hid_t d), (a, b, c, d),                 \
    H5I_INVALID_HID)                                                                               \
  X(hid_t, H5Fopen, (const char* a, unsigned b, hid_t c), (a, b, c), H5I_INVALID_HID)              \
  X(herr_t, H5Gclose, (hid_t a), (a), -1)                                                          \
  X(hid_t, H5Gcreate2, (hid_t a, const char* b, hid_t c, hid_t d, hid_t e), (a, b, c, d, e),       \
    H5I_INVALID_HID)                                                                               \
  X(htri_t, H5Lexists, (hid_t a, const char* b, hid_t c), (a, b, c), -1)                           \
  X(herr_t, H5Oclose, (hid_t a), (a), -1)                                                          \
  X(hid_t, H5Oopen, (hid_t a, const char* b, hid_t c), (a, b, c), H5I_INVALID_HID)                 \
  X(herr_t, H5Pclose, (hid_t a), (a), -1)                                                          \
  X(hid_t, H5Pcreate, (hid_t a), (a), H5I_INVALID_HID)                                             \
  X(herr_t, H5Pset_attr_creation_order, (hid_t a, unsigned b), (a, b), -1)                         \
  X(herr_t, H5Pset_chunk, (hid_t a, int b, const hsize_t* c), (a, b, c), -1)                       \
  X(herr_t, H5Pset_deflate, (hid_t a, unsigned b), (a, b), -1)                                     \
  X(herr_t, H5Pset_dxpl_mpio, (hid_t a, H5FD_mpio_xfer_t b), (a, b), -1)                           \
  X(herr_t, H5Pset_fapl_mpio, (hid_t a, MPI_Comm b, MPI_Info c), (a, b, c), -1)                    \
  X(herr_t, H5Pset_fclose_degree, (hid_t a, H5F_close_degree_t b), (a, b), -1)                     \
  X(herr_t, H5Pset_link_creation_order, (hid_t a, unsigned b), (a, b), -1)                         \
  X(herr_t, H5Pset_obj_track_times, (hid_t a, hbool_t b), (a, b), -1)                              \
  X(herr_t, H5Pset_shuffle, (hid_t a), (a), -1)                                                    \
  X(herr_t, H5Sclose, (hid_t a), (a), -1)                                                          \
  X(hid_t, H5Screate, (H5S_class_t a), (a), H5I_INVALID_HID)                                       \
  X(hid_t, H5Screate_simple, (int a, const hsize_t* b, const hsize_t* c), (a, b, c),               \
    H5I_INVALID_HID)                                                                               \
  X(herr_t, H5Sselect_hyperslab,                                                                   \
    (hid_t a, H5S_seloper_t b, const hsize_t* c, const hsize_t* d, const hsize_t* e,               \
     const hsize_t* f),                                                                            \
    (a, b, c, d, e, f), -1)                                                                        \
  X(herr_t, H5Sselect_none, (hid_t a), (a), -1)                                                    \
  X(herr_t, H5Sselect_elements, (hid_t a, H5S_seloper_t b, size_t c, const hsize_t* d),            \
    (a, b, c, d), -1)                                                                              \
  X(herr_t, H5Tclose, (hid_t a), (a), -1)                                                          \
  X(hid_t, H5Tcopy, (hid_t a), (a), H5I_INVALID_HID)                                               \
  X(herr_t, H5Tset_cset, (hid_t a, H5T_cset_t b), (a, b), -1)                                      \
  X(herr_t, H5Tset_size, (hid_t a, size_t b), (a, b), -1)                                          \
  X(herr_t, H5Tset_strpad, (hid_t a, H5T_str_t b), (a, b), -1)                                     \
  X(htri_t, H5Zfilter_avail, (H5Z_filter_t a), (a), -1)                                            \
  X(herr_t, H5check_version, (unsigned a, unsigned b, unsigned c), (a, b, c), -1)                  \
  X(herr_t, H5dont_atexit, (), (), -1)                                                             \
  X(herr_t, H5open, (), (), -1)

// The library's global ids io/hdf5/ uses through HDF5's macros (H5T_NATIVE_DOUBLE expands to
// "(H5open(), H5T_NATIVE_DOUBLE_g)"): defined below, filled from the library once it is started.
#define CS_HDF5_GLOBALS(X)       \
  X(H5P_CLS_DATASET_CREATE_ID_g) \
  X(H5P_CLS_DATASET_XFER_ID_g)   \
  X(H5P_CLS_FILE_ACCESS_ID_g)    \
  X(H5P_CLS_FILE_CREATE_ID_g)    \
  X(H5P_CLS_GROUP_CREATE_ID_g)   \
  X(H5T_C_S1_g)                  \
  X(H5T_IEEE_F64LE_g)            \
  X(H5T_NATIVE_DOUBLE_g)         \
  X(H5T_NATIVE_INT64_g)          \
  X(H5T_STD_I64LE_g)

// The library's functions, once loaded.
struct Api {
#define CS_HDF5_POINTER(ret, name, params, args, fail) decltype(&::name) name = nullptr;
  CS_HDF5_FUNCTIONS(CS_HDF5_POINTER)
#undef CS_HDF5_POINTER
};

struct Loaded {
  Api api;
  bool ok = false;
  std::string error;  // why not ok
};

Loaded& loaded() {
  static Loaded l;
  return l;
}

void load_once(Loaded& l) {
  const char* chosen = std::getenv("CLUSTERSCOPE_HDF5_LIBRARY");
  const std::string file = chosen && *chosen ? chosen : CS_HDF5_SONAME;
  void* lib = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    l.error = "cannot load the HDF5 library " + file + " (" + (why ? why : "unknown error") + ")";
    return;
  }
  std::string missing;
  auto find = [&](const char* name) {
    void* p = dlsym(lib, name);
    if (!p) missing += (missing.empty() ? "" : ", ") + std::string(name);
    return p;
  };
#define CS_HDF5_RESOLVE(ret, name, params, args, fail) \
  l.api.name = reinterpret_cast<decltype(l.api.name)>(find(#name));
  CS_HDF5_FUNCTIONS(CS_HDF5_RESOLVE)
#undef CS_HDF5_RESOLVE
  // A program that links HDF5 itself has these ids in its own copies already (the library's
  // code writes there); otherwise they are the library's and are copied once it has started.
  std::vector<std::pair<hid_t*, const hid_t*>> globals;
#define CS_HDF5_GLOBAL(name) globals.emplace_back(&::name, static_cast<const hid_t*>(find(#name)));
  CS_HDF5_GLOBALS(CS_HDF5_GLOBAL)
#undef CS_HDF5_GLOBAL
  if (!missing.empty()) {
    l.error =
        "the library " + file + " lacks " + missing + " (clusterscope needs HDF5 1.10.3 or later)";
    return;
  }
  // As clusterscope always starts it (io/hdf5/hdf5_error.h): no exit-time cleanup, silent.
  l.api.H5dont_atexit();
  if (l.api.H5open() < 0) {
    l.error = "the HDF5 library " + file + " did not start (H5open failed)";
    return;
  }
  l.api.H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  for (auto [ours, theirs] : globals)
    if (*ours < 0) *ours = *theirs;
  l.ok = true;
}

// The loaded library's functions, or nullptr when it cannot be loaded.
const Api* api() {
  static std::once_flag once;
  Loaded& l = loaded();
  std::call_once(once, [&] { load_once(l); });
  return l.ok ? &l.api : nullptr;
}

}  // namespace

extern "C" {

#define CS_HDF5_GLOBAL_DEFINE(name) hid_t name = H5I_INVALID_HID;
CS_HDF5_GLOBALS(CS_HDF5_GLOBAL_DEFINE)
#undef CS_HDF5_GLOBAL_DEFINE

#define CS_HDF5_FORWARD(ret, name, params, args, fail) \
  ret name params {                                    \
    const Api* lib_ = api();                           \
    return lib_ ? lib_->name args : (fail);            \
  }
CS_HDF5_FUNCTIONS(CS_HDF5_FORWARD)
#undef CS_HDF5_FORWARD

}  // extern "C"

namespace cs::io {

bool hdf5_load_library() {
  return api() != nullptr;
}

std::string hdf5_library_error() {
  api();
  return loaded().error;
}

}  // namespace cs::io
