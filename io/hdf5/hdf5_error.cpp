#include "io/hdf5/hdf5_error.h"

#include <hdf5.h>

#include <vector>

#include "io/hdf5/hdf5_library.h"

namespace cs::io {

namespace {

herr_t collect(unsigned /*n*/, const H5E_error2_t* err, void* data) {
  auto* out = static_cast<std::vector<std::string>*>(data);
  if (err && err->desc && *err->desc) out->emplace_back(err->desc);
  return 0;
}

}  // namespace

void hdf5_silence_errors() {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

void hdf5_start_without_exit_cleanup() {
  hdf5_load_library();  // it starts the library without exit cleanup and silent
}

std::string hdf5_error_text() {
  if (!hdf5_load_library()) return hdf5_library_error();
  std::vector<std::string> descs;  // outermost (API) first
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect, &descs);
  H5Eclear2(H5E_DEFAULT);
  if (descs.empty()) return "unknown HDF5 error";
  std::string text = descs.front();
  if (descs.size() > 1 && descs.back() != descs.front()) text += ": " + descs.back();
  // HDF5's descriptions may hold line breaks: a message stays one line.
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text;
}

}  // namespace cs::io
