#pragma once
// RAII ownership of HDF5 C API identifiers (hid_t): each identifier is closed exactly once, by
// the close function of its kind; handles move, never copy.
//
//   Hdf5Space space(H5Screate(H5S_SCALAR));
//   if (!space) { /* creation failed: see hdf5_error_text() */ }
//   H5Acreate2(obj, "rows", H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT);
//
// Library-owned predefined types (H5T_NATIVE_DOUBLE, H5T_C_S1 ...) are never wrapped: only
// identifiers returned by create/open/copy calls are.

#include <hdf5.h>

#include <utility>

namespace cs::io {

template <herr_t (*Close)(hid_t)>
class Hdf5Handle {
 public:
  Hdf5Handle() = default;
  // Takes ownership of `id`; a negative id (a failed HDF5 call) makes an empty handle.
  explicit Hdf5Handle(hid_t id) : id_(id < 0 ? H5I_INVALID_HID : id) {}
  ~Hdf5Handle() { close(); }

  Hdf5Handle(const Hdf5Handle&) = delete;
  Hdf5Handle& operator=(const Hdf5Handle&) = delete;
  Hdf5Handle(Hdf5Handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)) {}
  Hdf5Handle& operator=(Hdf5Handle&& other) noexcept {
    if (this != &other) {
      close();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
    }
    return *this;
  }

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  explicit operator bool() const { return valid(); }

  // Closes now; returns the close call's status (negative on failure, 0 when already empty).
  // Useful for files, whose close is where buffered data reaches the disk.
  herr_t close() {
    herr_t status = 0;
    if (valid()) status = Close(id_);
    id_ = H5I_INVALID_HID;
    return status;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
};

using Hdf5FileHandle = Hdf5Handle<H5Fclose>;
using Hdf5Group = Hdf5Handle<H5Gclose>;
using Hdf5Dataset = Hdf5Handle<H5Dclose>;
using Hdf5Space = Hdf5Handle<H5Sclose>;
using Hdf5Type = Hdf5Handle<H5Tclose>;
using Hdf5Plist = Hdf5Handle<H5Pclose>;
using Hdf5Attribute = Hdf5Handle<H5Aclose>;
using Hdf5Object = Hdf5Handle<H5Oclose>;  // anything opened with H5Oopen

}  // namespace cs::io
