#include "io/hdf5/hdf5_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <set>
#include <utility>
#include <vector>

#include "io/hdf5/hdf5_chunks.h"
#include "io/hdf5/hdf5_error.h"
#include "io/hdf5/hdf5_library.h"
#include "io/hdf5/hdf5_mpio.h"
#include "io/hdf5/hdf5_parts.h"
#include "io/output_file.h"
#include "io/output_ledger.h"

namespace cs::io {

namespace hdf5_parts {  // shared with io/hdf5/hdf5_collective_table.cpp (hdf5_parts.h)

const char* const kDefaultHint =
    "the HDF5 file was not written; check free disk space and that the output directory is "
    "writable";

// Variable-length UTF-8 strings: what h5py reads as str (with .asstr() for datasets).
Hdf5Type utf8_string_type() {
  Hdf5Type t(H5Tcopy(H5T_C_S1));
  if (!t) return t;
  if (H5Tset_size(t.get(), H5T_VARIABLE) < 0 || H5Tset_cset(t.get(), H5T_CSET_UTF8) < 0)
    return Hdf5Type();
  return t;
}

// Group creation properties: links and attributes listed in creation order (h5py keys() and
// attrs follow it), no modification times (identical inputs give identical files).
Hdf5Plist group_create_plist() {
  Hdf5Plist p(H5Pcreate(H5P_GROUP_CREATE));
  if (!p) return p;
  const unsigned order = H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED;
  if (H5Pset_link_creation_order(p.get(), order) < 0 ||
      H5Pset_attr_creation_order(p.get(), order) < 0 || H5Pset_obj_track_times(p.get(), 0) < 0)
    return Hdf5Plist();
  return p;
}

// Creates (replacing an existing one) a scalar attribute. False on an HDF5 error (stack kept).
bool write_scalar_attribute(hid_t obj, const std::string& name, const Hdf5Value& value) {
  if (H5Aexists(obj, name.c_str()) > 0 && H5Adelete(obj, name.c_str()) < 0) return false;
  Hdf5Space space(H5Screate(H5S_SCALAR));
  if (!space) return false;
  if (const auto* s = std::get_if<std::string>(&value)) {
    Hdf5Type type = utf8_string_type();
    if (!type) return false;
    Hdf5Attribute a(
        H5Acreate2(obj, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
    const char* text = s->c_str();
    return a && H5Awrite(a.get(), type.get(), &text) >= 0;
  }
  if (const auto* i = std::get_if<int64_t>(&value)) {
    Hdf5Attribute a(
        H5Acreate2(obj, name.c_str(), H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT));
    return a && H5Awrite(a.get(), H5T_NATIVE_INT64, i) >= 0;
  }
  const double d = std::get<double>(value);
  Hdf5Attribute a(
      H5Acreate2(obj, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT));
  return a && H5Awrite(a.get(), H5T_NATIVE_DOUBLE, &d) >= 0;
}

// A 1-D attribute of variable-length UTF-8 strings (h5py: numpy array of str).
bool write_string_list_attribute(hid_t obj, const std::string& name,
                                 const std::vector<const char*>& values) {
  const hsize_t dims[1] = {values.size()};
  Hdf5Space space(H5Screate_simple(1, dims, nullptr));
  Hdf5Type type = utf8_string_type();
  if (!space || !type) return false;
  Hdf5Attribute a(H5Acreate2(obj, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
  if (!a) return false;
  return values.empty() || H5Awrite(a.get(), type.get(), values.data()) >= 0;
}

// Fixed-length, NUL-padded UTF-8 strings of `size` bytes (h5py: ds.asstr()[:] gives str).
// Chosen over variable-length strings, which HDF5 keeps uncompressed in a global heap (a
// million short strings: ~60 MB instead of ~1 MB, and several times slower to write).
Hdf5Type fixed_string_type(size_t size) {
  Hdf5Type t(H5Tcopy(H5T_C_S1));
  if (!t) return t;
  if (H5Tset_size(t.get(), size) < 0 || H5Tset_strpad(t.get(), H5T_STR_NULLPAD) < 0 ||
      H5Tset_cset(t.get(), H5T_CSET_UTF8) < 0)
    return Hdf5Type();
  return t;
}

// Writes a string column chunk by chunk (one full chunk per H5Dwrite, so compressed chunks are
// never read back), through a buffer of one chunk.
bool write_strings(hid_t ds, hid_t type, const Column& c, size_t width, hsize_t chunk_rows) {
  Hdf5Space file_space(H5Dget_space(ds));
  if (!file_space) return false;
  std::string buf;
  const size_t rows = c.size();
  for (size_t start = 0; start < rows; start += chunk_rows) {
    const size_t n = std::min<size_t>(chunk_rows, rows - start);
    buf.assign(n * width, '\0');
    for (size_t i = 0; i < n; ++i) {
      const std::string_view v = c.str(start + i);
      buf.replace(i * width, v.size(), v);
    }
    const hsize_t offset[1] = {start};
    const hsize_t count[1] = {n};
    Hdf5Space mem_space(H5Screate_simple(1, count, nullptr));
    if (!mem_space ||
        H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, offset, nullptr, count, nullptr) <
            0 ||
        H5Dwrite(ds, type, mem_space.get(), file_space.get(), H5P_DEFAULT, buf.data()) < 0)
      return false;
  }
  return true;
}

// Writes a column of variable-length strings (hdf5_variable_strings) in one H5Dwrite: HDF5 puts
// each value in the file's global heap, at its own size.
bool write_variable_strings(hid_t ds, hid_t type, const Column& c) {
  if (c.size() == 0) return true;
  std::vector<const char*> values(c.size());
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = c.encoded ? c.dict[c.codes[i]].c_str() : c.strings[i].c_str();
  return H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0;
}

// One column as a chunked, compressed 1-D dataset with a "units" attribute. Chunks hold
// min(opt.chunk_rows, 1 MiB / element size) rows, at least 1, so one fits HDF5's default chunk
// cache. `filtered`: the column's chunks already filtered as the dataset's filters would
// (io/hdf5/hdf5_chunks.h), stored as they are; null: HDF5 filters them.
bool write_column(hid_t group, const Column& c, size_t rows, const Hdf5TableOptions& opt,
                  const Hdf5ColumnChunks* filtered) {
  Hdf5Type string_type;
  hid_t file_type = H5T_IEEE_F64LE;
  hid_t mem_type = H5T_NATIVE_DOUBLE;
  const void* data = c.doubles.data();
  const size_t element_size = hdf5_element_size(c);
  const bool variable = hdf5_variable_strings(c);
  switch (c.type) {
    case ColumnType::kDouble:
      break;
    case ColumnType::kInt:
      file_type = H5T_STD_I64LE;
      mem_type = H5T_NATIVE_INT64;
      data = c.ints.data();
      break;
    case ColumnType::kString:
      string_type = variable ? utf8_string_type() : fixed_string_type(element_size);
      if (!string_type) return false;
      file_type = mem_type = string_type.get();
      break;
  }
  const hsize_t chunk_rows = hdf5_chunk_rows(rows, opt.chunk_rows, element_size);

  const hsize_t dims[1] = {rows};
  const hsize_t maxdims[1] = {H5S_UNLIMITED};
  Hdf5Space space(H5Screate_simple(1, dims, maxdims));
  Hdf5Plist dcpl(H5Pcreate(H5P_DATASET_CREATE));
  if (!space || !dcpl) return false;
  const hsize_t chunk[1] = {chunk_rows};
  if (H5Pset_chunk(dcpl.get(), 1, chunk) < 0) return false;
  if (opt.shuffle && H5Pset_shuffle(dcpl.get()) < 0) return false;
  if (opt.deflate_level > 0 && H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0 &&
      H5Pset_deflate(dcpl.get(), static_cast<unsigned>(std::min(opt.deflate_level, 9))) < 0)
    return false;
  if (H5Pset_obj_track_times(dcpl.get(), 0) < 0) return false;

  Hdf5Dataset ds(H5Dcreate2(group, c.name.c_str(), file_type, space.get(), H5P_DEFAULT, dcpl.get(),
                            H5P_DEFAULT));
  if (!ds) return false;
  if (variable) {
    if (!write_variable_strings(ds.get(), mem_type, c)) return false;
  } else if (filtered) {
    for (size_t i = 0; i < filtered->chunks.size(); ++i) {
      const hsize_t offset[1] = {i * chunk_rows};
      const auto& bytes = filtered->chunks[i];
      if (H5Dwrite_chunk(ds.get(), H5P_DEFAULT, 0, offset, bytes.size(), bytes.data()) < 0)
        return false;
    }
  } else if (c.type == ColumnType::kString) {
    if (!write_strings(ds.get(), mem_type, c, element_size, chunk_rows)) return false;
  } else if (rows > 0 && H5Dwrite(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
    return false;
  }
  return write_scalar_attribute(ds.get(), "units", c.unit);
}

// True when `chunks` were filtered as the datasets of `t` written with `opt` filter theirs.
bool chunks_fit(const Hdf5Chunks& chunks, const Table& t, const Hdf5TableOptions& opt) {
  if (chunks.shuffle != opt.shuffle || chunks.columns.size() != t.columns.size()) return false;
  const int level = opt.deflate_level > 0 && H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0
                        ? std::min(opt.deflate_level, 9)
                        : 0;
  if (chunks.deflate_level != level) return false;
  for (size_t k = 0; k < t.columns.size(); ++k) {
    const Column& c = t.columns[k];
    const Hdf5ColumnChunks& cc = chunks.columns[k];
    const size_t rows = t.rows();
    const size_t chunks = hdf5_variable_strings(c) ? 0 : (rows + cc.chunk_rows - 1) / cc.chunk_rows;
    if (cc.element_size != hdf5_element_size(c) ||
        cc.chunk_rows != hdf5_chunk_rows(rows, opt.chunk_rows, cc.element_size) ||
        cc.chunks.size() != chunks)
      return false;
  }
  return true;
}

// Why a table cannot be written as it is (empty when it can).
std::string check_table(const Table& t) {
  if (t.name.empty()) return "table has no name (the HDF5 group name)";
  if (t.name.find('/') != std::string::npos || t.name == "." || t.name == "..")
    return "table name '" + t.name + "' cannot be an HDF5 group name";
  std::set<std::string> seen;
  for (const auto& c : t.columns) {
    if (c.size() != t.rows())
      return "table " + t.name + ": column " + c.name + " has " + std::to_string(c.size()) +
             " rows, expected " + std::to_string(t.rows());
    if (c.name.empty() || c.name == "." || c.name.find('/') != std::string::npos)
      return "table " + t.name + ": column name '" + c.name + "' cannot be an HDF5 dataset name";
    if (!seen.insert(c.name).second)
      return "table " + t.name + ": column " + c.name + " appears twice";
  }
  return {};
}

std::string check_columns(const Table& schema) {
  Table empty(schema.name);
  for (const Column& c : schema.columns) {
    Column& e = empty.columns.emplace_back();
    e.name = c.name;
    e.type = c.type;
  }
  return check_table(empty);
}

bool create_table_group(hid_t file, const Table& schema, int64_t rows, Hdf5Group& group,
                        const std::function<void(const std::string&)>& fail) {
  const std::string group_path = "/" + schema.name;
  Hdf5Plist gcpl = group_create_plist();
  if (gcpl)
    group = Hdf5Group(H5Gcreate2(file, group_path.c_str(), H5P_DEFAULT, gcpl.get(), H5P_DEFAULT));
  if (!group) {
    fail("cannot create group " + group_path);
    return false;
  }
  std::vector<const char*> names;
  for (const Column& c : schema.columns) names.push_back(c.name.c_str());
  if (!write_scalar_attribute(group.get(), "rows", rows) ||
      !write_string_list_attribute(group.get(), "columns", names)) {
    fail("cannot write the attributes of group " + group_path);
    return false;
  }
  return true;
}

}  // namespace hdf5_parts

using namespace hdf5_parts;

Hdf5File::Hdf5File(std::string path, Hdf5FileHandle file, const Hdf5Collective* coll)
    : path_(std::move(path)),
      file_(std::move(file)),
      coll_(coll && coll->processes() > 1 ? coll : nullptr),
      owner_(!coll || coll->process() == 0) {}

Hdf5File::Hdf5File(Hdf5File&& other) noexcept
    : path_(std::move(other.path_)),
      file_(std::move(other.file_)),
      failed_(std::exchange(other.failed_, false)),
      coll_(std::exchange(other.coll_, nullptr)),
      owner_(other.owner_) {}

Hdf5File& Hdf5File::operator=(Hdf5File&& other) noexcept {
  if (this != &other) {
    abandon();
    path_ = std::move(other.path_);
    file_ = std::move(other.file_);
    failed_ = std::exchange(other.failed_, false);
    coll_ = std::exchange(other.coll_, nullptr);
    owner_ = other.owner_;
  }
  return *this;
}

Hdf5File::~Hdf5File() {
  abandon();
}

void Hdf5File::abandon() {
  if (!file_) return;  // finished, or moved from
  file_.close();
  if (!owner_) return;  // the root removes the file
  std::remove((path_ + ".tmp").c_str());
  H5Eclear2(H5E_DEFAULT);
  OutputLedger::instance().failed(path_);
}

std::optional<Hdf5File> Hdf5File::create(const std::string& path, Diagnostics& diag,
                                         const Hdf5Collective* coll) {
  const std::string tmp = path + ".tmp";
  const bool owner = !coll || coll->process() == 0;
  const bool parallel = coll && coll->processes() > 1;
  if (owner) OutputLedger::instance().started(path);
  if (!hdf5_load_library()) {
    if (owner) OutputLedger::instance().failed(path);
    diag.error(path, 0, "cannot write " + path + ": " + hdf5_library_error(),
               "install Debian's libhdf5-openmpi-103-1 (or point CLUSTERSCOPE_HDF5_LIBRARY at an "
               "HDF5 1.10 library), or leave hdf5 out of --format");
    return std::nullopt;
  }
  hdf5_silence_errors();
  // The default (sec2, POSIX) driver for one process; MPI-IO for several (every process calls
  // this: H5Fcreate is collective then).
  Hdf5Plist fapl(H5Pcreate(H5P_FILE_ACCESS));
  if (fapl && parallel && !hdf5_set_mpio_driver(fapl.get(), *coll)) fapl = Hdf5Plist();
  Hdf5Plist fcpl(H5Pcreate(H5P_FILE_CREATE));
  const unsigned order = H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED;
  Hdf5FileHandle file;
  if (fapl && fcpl && H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG) >= 0 &&
      H5Pset_link_creation_order(fcpl.get(), order) >= 0 &&
      H5Pset_attr_creation_order(fcpl.get(), order) >= 0 &&
      H5Pset_obj_track_times(fcpl.get(), 0) >= 0)
    file = Hdf5FileHandle(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()));
  if (!file) {
    const std::string text = hdf5_error_text();
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    std::error_code ec;
    const bool dir_exists = dir.empty() || std::filesystem::is_directory(dir, ec);
    if (owner) OutputLedger::instance().failed(path);
    diag.error(path, 0, "cannot create HDF5 file " + tmp + ": " + text,
               dir_exists ? "check that the output directory is writable and has free space, or "
                            "choose another with -o"
                          : "the output directory does not exist; create it or choose another "
                            "with -o");
    return std::nullopt;
  }
  return Hdf5File(path, std::move(file), coll);
}

bool Hdf5File::end_collective(Diagnostics& diag) {
  if (!coll_ || !file_) return file_ && !failed_;
  const Hdf5Collective& coll = *std::exchange(coll_, nullptr);
  // Every process learns whether any failed, then all close the file together.
  const bool any_failed = coll.all_max({failed_ ? 1u : 0u}).at(0) != 0;
  if (any_failed && !failed_ && owner_)
    diag.error(path_, 0, "writing the HDF5 file failed on another process",
               "see that process's message; the HDF5 file was not written");
  failed_ = failed_ || any_failed;
  const bool closed = file_.close() >= 0;
  if (!owner_) return false;  // the root goes on alone
  const std::string tmp = path_ + ".tmp";
  if (!closed && !failed_) fail(diag, "cannot close HDF5 file " + tmp);
  if (failed_) {
    std::remove(tmp.c_str());
    OutputLedger::instance().failed(path_);
    return false;
  }
  Hdf5Plist fapl(H5Pcreate(H5P_FILE_ACCESS));
  if (fapl && H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG) >= 0)
    file_ = Hdf5FileHandle(H5Fopen(tmp.c_str(), H5F_ACC_RDWR, fapl.get()));
  if (!file_) {
    fail(diag, "cannot reopen HDF5 file " + tmp);
    std::remove(tmp.c_str());
    OutputLedger::instance().failed(path_);
    return false;
  }
  return true;
}

bool Hdf5File::fail(Diagnostics& diag, const std::string& what, const std::string& hint) {
  diag.error(path_, 0, what + ": " + hdf5_error_text(), hint.empty() ? kDefaultHint : hint);
  failed_ = true;
  return false;
}

bool Hdf5File::write_table(const Table& t, Diagnostics& diag, const Hdf5TableOptions& opt,
                           const Hdf5Chunks* filtered) {
  if (!file_) {
    diag.error(path_, 0, "table " + t.name + " written after finish()",
               "this is a bug in clusterscope, please report it");
    return false;
  }
  if (failed_) return false;  // one message per problem: the failure is already reported
  if (coll_) return fail(diag, "table " + t.name + " written by one process of a collective file");
  if (std::string why = check_table(t); !why.empty()) {
    diag.error(path_, 0, why, "the table was left out of the HDF5 file; please report this bug");
    return false;
  }
  const std::string group_path = "/" + t.name;
  if (H5Lexists(file_.get(), group_path.c_str(), H5P_DEFAULT) > 0) {
    diag.error(path_, 0, "table " + t.name + " is already in the HDF5 file",
               "the second copy was left out; please report this bug");
    return false;
  }
  Hdf5Plist gcpl = group_create_plist();
  if (!gcpl) return fail(diag, "cannot prepare group /" + t.name);
  Hdf5Group group(
      H5Gcreate2(file_.get(), group_path.c_str(), H5P_DEFAULT, gcpl.get(), H5P_DEFAULT));
  if (!group) return fail(diag, "cannot create group " + group_path);

  const size_t rows = t.rows();
  std::vector<const char*> names;
  for (const auto& c : t.columns) names.push_back(c.name.c_str());
  if (!write_scalar_attribute(group.get(), "rows", static_cast<int64_t>(rows)) ||
      !write_string_list_attribute(group.get(), "columns", names))
    return fail(diag, "cannot write the attributes of group " + group_path);
  if (filtered && !chunks_fit(*filtered, t, opt)) filtered = nullptr;  // HDF5 filters then
  for (size_t k = 0; k < t.columns.size(); ++k) {
    const Column& c = t.columns[k];
    if (!write_column(group.get(), c, rows, opt, filtered ? &filtered->columns[k] : nullptr))
      return fail(diag, "cannot write dataset " + group_path + "/" + c.name);
  }
  return true;
}

bool Hdf5File::set_attribute(const std::string& object_path, const std::string& name,
                             const Hdf5Value& value, Diagnostics& diag) {
  if (!file_) {
    diag.error(path_, 0, "attribute " + name + " set after finish()",
               "this is a bug in clusterscope, please report it");
    return false;
  }
  if (failed_) return false;  // already reported
  if (coll_) return fail(diag, "attribute " + name + " set by one process of a collective file");
  // Create the missing groups along the path, one component at a time.
  std::string prefix;
  size_t pos = 0;
  while (pos < object_path.size()) {
    size_t next = object_path.find('/', pos);
    if (next == std::string::npos) next = object_path.size();
    if (next > pos) {
      prefix += '/';
      prefix.append(object_path, pos, next - pos);
      const htri_t exists = H5Lexists(file_.get(), prefix.c_str(), H5P_DEFAULT);
      if (exists < 0) return fail(diag, "cannot look up " + prefix);
      if (exists == 0) {
        Hdf5Plist gcpl = group_create_plist();
        Hdf5Group g(
            gcpl ? H5Gcreate2(file_.get(), prefix.c_str(), H5P_DEFAULT, gcpl.get(), H5P_DEFAULT)
                 : H5I_INVALID_HID);
        if (!g) return fail(diag, "cannot create group " + prefix);
      }
    }
    pos = next + 1;
  }
  Hdf5Object obj(H5Oopen(file_.get(), prefix.empty() ? "/" : prefix.c_str(), H5P_DEFAULT));
  if (!obj) return fail(diag, "cannot open " + (prefix.empty() ? std::string("/") : prefix));
  if (!write_scalar_attribute(obj.get(), name, value))
    return fail(diag, "cannot write attribute " + name + " of " + (prefix.empty() ? "/" : prefix));
  return true;
}

bool Hdf5File::finish(Diagnostics& diag) {
  if (coll_ || !owner_) {
    diag.error(path_, 0, "HDF5 file finished while written collectively or by another process",
               "this is a bug in clusterscope, please report it");
    return false;
  }
  if (!file_) {
    diag.error(path_, 0, "HDF5 file finished twice", "this is a bug in clusterscope");
    return false;
  }
  if (failed_) {  // the failure is already in diag
    abandon();
    return false;
  }
  const std::string tmp = path_ + ".tmp";
  if (file_.close() < 0) {
    std::string text = hdf5_error_text();
    std::remove(tmp.c_str());
    failed_ = true;
    OutputLedger::instance().failed(path_);
    diag.error(path_, 0, "cannot close HDF5 file " + tmp + ": " + text, kDefaultHint);
    return false;
  }
  if (!publish_output(tmp, path_, diag)) {
    failed_ = true;
    return false;
  }
  return true;
}

}  // namespace cs::io
