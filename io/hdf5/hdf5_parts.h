#pragma once
// The pieces of io/hdf5/hdf5_writer.cpp that the collective writer
// (io/hdf5/hdf5_collective_table.cpp) builds the same layout with: one definition of the group,
// attribute and string types of clusterscope's HDF5 files. Internal to io/hdf5/.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "io/hdf5/hdf5_handle.h"
#include "io/hdf5/hdf5_writer.h"
#include "io/table.h"

namespace cs::io::hdf5_parts {

// Variable-length UTF-8 strings (attributes).
Hdf5Type utf8_string_type();
// Fixed-length, NUL-padded UTF-8 strings of `size` bytes (string columns).
Hdf5Type fixed_string_type(size_t size);
// Group creation properties: creation order tracked, no modification times.
Hdf5Plist group_create_plist();
// A scalar attribute (replacing one of that name). False on an HDF5 error.
bool write_scalar_attribute(hid_t obj, const std::string& name, const Hdf5Value& value);
// A 1-D attribute of variable-length UTF-8 strings.
bool write_string_list_attribute(hid_t obj, const std::string& name,
                                 const std::vector<const char*>& values);
// Why a table cannot be written as it is (empty when it can).
std::string check_table(const Table& t);
// check_table of `schema`'s names only (its column names and types, no rows).
std::string check_columns(const Table& schema);
// Creates group /<schema.name> into `group` with its "rows" (`rows`) and "columns" attributes,
// for the tables written a chunk at a time. On failure calls fail(what failed) while the HDF5
// error stack still holds the cause (for Hdf5File::fail) and returns false.
bool create_table_group(hid_t file, const Table& schema, int64_t rows, Hdf5Group& group,
                        const std::function<void(const std::string&)>& fail);

}  // namespace cs::io::hdf5_parts
