#pragma once
// What a table streamed a chunk at a time knows of one of its string columns before its first
// row: the longest value and the mean bytes of its values (an estimate), which decide how the
// HDF5 writer stores it (io/hdf5/hdf5_append.h: fixed-length as wide as the longest value, or
// variable-length when one long value stands among short ones).
//
//   io::StringColumnSize tuple{longest_tuple_key, bytes_of_all_keys / rows};

#include <cstddef>

namespace cs::io {

struct StringColumnSize {
  size_t longest = 0;  // bytes of the longest value
  double mean = 0;     // mean bytes of a value
};

}  // namespace cs::io
