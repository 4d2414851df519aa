#include "io/hdf5/hdf5_append.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <utility>

#include "io/hdf5/hdf5_chunks.h"
#include "io/hdf5/hdf5_parts.h"
#include "runtime/task_runner.h"

namespace cs::io {

namespace {

using namespace hdf5_parts;

// Raw bytes of filled chunks an append holds before filtering and storing them. With the filtered
// copies and the columns' new chunks, an append of many rows holds about three times this beside
// the table's own chunks: at 16,384 ranks the root's peak RSS was 3 MB lower with 1 MiB than with
// 4 MiB (150-153 MB against 154-155, two runs each), at the same speed (docs/root_memory.md).
constexpr size_t kFlushBytes = 1 << 20;

}  // namespace

bool Hdf5TableAppender::fail(Diagnostics& diag, const std::string& what) {
  return file_->fail(diag, "table " + name_ + ": " + what);
}

std::optional<Hdf5TableAppender> Hdf5TableAppender::create(
    Hdf5File& file, const Table& schema, const std::vector<StringColumnSize>& strings,
    Diagnostics& diag, const Hdf5TableOptions& opt) {
  if (file.failed() || !file.file_) return std::nullopt;  // already reported
  if (file.coll_) {
    file.fail(diag, "table " + schema.name + " streamed by one process of a collective file");
    return std::nullopt;
  }
  if (std::string why = check_columns(schema); !why.empty()) {
    file.fail(diag, why);
    return std::nullopt;
  }
  const std::string group_path = "/" + schema.name;
  if (H5Lexists(file.id(), group_path.c_str(), H5P_DEFAULT) > 0) {
    file.fail(diag, "table " + schema.name + " is already in the HDF5 file");
    return std::nullopt;
  }
  Hdf5TableAppender t(file, schema.name);
  t.shuffle_ = opt.shuffle;
  t.filter_threads_ = std::max(1, opt.filter_threads);
  t.level_ = opt.deflate_level > 0 && H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0
                 ? std::min(opt.deflate_level, 9)
                 : 0;
  auto fail = [&](const std::string& why) { t.fail(diag, why); };
  if (!create_table_group(file.id(), schema, int64_t{0}, t.group_, fail)) return std::nullopt;
  size_t next_string = 0;
  for (const Column& c : schema.columns) {
    Col col;
    col.type = c.type;
    Hdf5Type type;
    if (c.type == ColumnType::kString) {
      if (next_string >= strings.size()) {
        t.fail(diag, "no width given for string column " + c.name);
        return std::nullopt;
      }
      const StringColumnSize& size = strings[next_string++];
      col.width = std::max<size_t>(1, size.longest);
      // The whole-table rule, for a million rows of the mean size.
      constexpr double kRows = 1e6;
      col.variable = hdf5_variable_strings(
          col.width, static_cast<size_t>((std::max(size.mean, 0.0) + 1) * kRows),
          static_cast<size_t>(kRows));
      type = col.variable ? utf8_string_type() : fixed_string_type(col.width);
      if (col.variable) col.width = kVariableStringBytes;
    } else {
      type = Hdf5Type(H5Tcopy(c.type == ColumnType::kInt ? H5T_STD_I64LE : H5T_IEEE_F64LE));
    }
    col.chunk_rows = hdf5_chunk_rows(opt.chunk_rows, opt.chunk_rows, col.width);
    const hsize_t dims[1] = {0};
    const hsize_t maxdims[1] = {H5S_UNLIMITED};
    const hsize_t chunk[1] = {col.chunk_rows};
    Hdf5Space space(H5Screate_simple(1, dims, maxdims));
    Hdf5Plist dcpl(H5Pcreate(H5P_DATASET_CREATE));
    bool ok = type && space && dcpl && H5Pset_chunk(dcpl.get(), 1, chunk) >= 0 &&
              (!t.shuffle_ || H5Pset_shuffle(dcpl.get()) >= 0) &&
              (t.level_ == 0 || H5Pset_deflate(dcpl.get(), static_cast<unsigned>(t.level_)) >= 0) &&
              H5Pset_obj_track_times(dcpl.get(), 0) >= 0;
    col.ds = Hdf5Dataset(ok ? H5Dcreate2(t.group_.get(), c.name.c_str(), type.get(), space.get(),
                                         H5P_DEFAULT, dcpl.get(), H5P_DEFAULT)
                            : H5I_INVALID_HID);
    if (!col.ds || !write_scalar_attribute(col.ds.get(), "units", c.unit)) {
      t.fail(diag, "cannot create dataset " + group_path + "/" + c.name);
      return std::nullopt;
    }
    if (!col.variable) col.raw.assign(col.chunk_rows * col.width, 0);
    t.cols_.push_back(std::move(col));
  }
  return t;
}

void Hdf5TableAppender::take(Col& c) {
  if (c.pending == 0) return;
  Full f;
  f.col = static_cast<size_t>(&c - cols_.data());
  f.offset = c.stored;
  if (c.variable) {
    f.text = std::move(c.text);
    c.text.clear();
  } else {
    // A partial (last) chunk is padded with zeros, as HDF5 pads an edge chunk.
    std::fill(c.raw.begin() + static_cast<long>(c.pending * c.width), c.raw.end(), 0);
    f.raw = std::move(c.raw);
    c.raw.assign(c.chunk_rows * c.width, 0);
    full_bytes_ += f.raw.size();
  }
  full_.push_back(std::move(f));
  c.stored += c.pending;
  c.pending = 0;
}

bool Hdf5TableAppender::flush() {
  std::vector<Full> full = std::move(full_);
  full_.clear();
  full_bytes_ = 0;
  // Filtering is pure computation (io/hdf5/hdf5_chunks.h): on several threads; storing is HDF5's
  // and stays on this one, in the order the chunks filled. Deflated with zlib's run-length
  // strategy: these chunks never go through HDF5's own filter (this table is written by one
  // process only), so they need not be its bytes, only a deflate stream (docs/scale.md).
  try {
    runtime::parallel_for(full.size(), filter_threads_, [&](size_t i) {
      Full& f = full[i];
      if (!cols_[f.col].variable)
        f.raw = filter_chunk(std::move(f.raw), cols_[f.col].width, shuffle_, level_,
                             DeflateStrategy::kRunLength);
    });
  } catch (const std::exception&) {
    return false;
  }
  for (Full& f : full) {
    Col& c = cols_[f.col];
    const hsize_t offset[1] = {f.offset};
    if (c.variable) {
      std::vector<const char*> values(f.text.size());
      for (size_t i = 0; i < values.size(); ++i) values[i] = f.text[i].c_str();
      const hsize_t count[1] = {f.text.size()};
      Hdf5Type type = utf8_string_type();
      Hdf5Space file_space(H5Dget_space(c.ds.get()));
      Hdf5Space mem_space(H5Screate_simple(1, count, nullptr));
      if (!type || !file_space || !mem_space ||
          H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, offset, nullptr, count, nullptr) <
              0 ||
          H5Dwrite(c.ds.get(), type.get(), mem_space.get(), file_space.get(), H5P_DEFAULT,
                   values.data()) < 0)
        return false;
    } else if (H5Dwrite_chunk(c.ds.get(), H5P_DEFAULT, 0, offset, f.raw.size(), f.raw.data()) < 0) {
      return false;
    }
  }
  return true;
}

bool Hdf5TableAppender::append(const Table& rows, Diagnostics& diag) {
  if (file_->failed() || finished_) return false;
  std::string why;
  if (rows.columns.size() != cols_.size()) why = "its columns differ from the table's";
  const size_t n = rows.rows();
  for (size_t k = 0; why.empty() && k < cols_.size(); ++k) {
    const Column& c = rows.columns[k];
    if (c.type != cols_[k].type || c.size() != n) {
      why = "column " + c.name + " differs from the table's";
    } else if (c.type == ColumnType::kString && !cols_[k].variable) {
      const size_t count = c.encoded ? c.dict.size() : n;
      for (size_t i = 0; why.empty() && i < count; ++i)
        if ((c.encoded ? std::string_view(c.dict[i]) : c.str(i)).size() > cols_[k].width)
          why = "column " + c.name + " holds a value wider than its width (" +
                std::to_string(cols_[k].width) + " bytes)";
    }
  }
  if (!why.empty()) return fail(diag, "rows not written: " + why);
  if (n == 0) return true;
  const hsize_t dims[1] = {rows_ + n};
  for (Col& c : cols_)
    if (H5Dset_extent(c.ds.get(), dims) < 0) return fail(diag, "cannot grow its datasets");
  for (size_t k = 0; k < cols_.size(); ++k) {
    Col& c = cols_[k];
    const Column& in = rows.columns[k];
    for (size_t i = 0; i < n; ++i) {
      unsigned char* at = c.variable ? nullptr : c.raw.data() + c.pending * c.width;
      switch (c.type) {
        case ColumnType::kDouble:
          std::memcpy(at, &in.doubles[i], 8);
          break;
        case ColumnType::kInt:
          std::memcpy(at, &in.ints[i], 8);
          break;
        case ColumnType::kString: {
          const std::string_view v = in.str(i);
          if (c.variable) {
            c.text.emplace_back(v);
          } else {
            std::memcpy(at, v.data(), v.size());
            std::memset(at + v.size(), 0, c.width - v.size());
          }
          break;
        }
      }
      if (++c.pending == c.chunk_rows) {
        take(c);
        if (full_bytes_ >= kFlushBytes && !flush())
          return fail(diag, "cannot write dataset /" + name_ + "/" + in.name);
      }
    }
  }
  if (!flush()) return fail(diag, "cannot write its datasets");
  rows_ += n;
  return true;
}

bool Hdf5TableAppender::finish(Diagnostics& diag) {
  if (file_->failed() || finished_) return false;
  finished_ = true;
  for (Col& c : cols_) take(c);
  if (!flush()) return fail(diag, "cannot write the last rows of its datasets");
  if (!write_scalar_attribute(group_.get(), "rows", static_cast<int64_t>(rows_)))
    return fail(diag, "cannot write its rows attribute");
  cols_.clear();
  group_ = Hdf5Group();
  return true;
}

}  // namespace cs::io
