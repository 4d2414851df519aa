#include "io/hdf5/hdf5_collective_table.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>

#include "io/hdf5/hdf5_chunks.h"
#include "io/hdf5/hdf5_error.h"
#include "io/hdf5/hdf5_mpio.h"
#include "io/hdf5/hdf5_parts.h"

namespace cs::io {

namespace {

using namespace hdf5_parts;

// A serial file's "collective": one process, whose agreements are its own values.
class Solo : public Hdf5Collective {
 public:
  int process() const override { return 0; }
  int processes() const override { return 1; }
  const void* mpi_comm() const override { return nullptr; }
  const void* mpi_info() const override { return nullptr; }
  std::vector<std::vector<uint64_t>> all_gather(const std::vector<uint64_t>& mine) const override {
    return {mine};
  }
  std::vector<uint64_t> all_max(const std::vector<uint64_t>& values) const override {
    return values;
  }
};

const Hdf5Collective& collective_of(const Hdf5File& file) {
  static const Solo solo;
  return file.collective() ? *file.collective() : solo;
}

size_t longest_value(const Column& c) {
  size_t width = 1;  // as hdf5_element_size: HDF5 types have a size >= 1
  const size_t rows = c.size();
  for (size_t i = 0; i < rows; ++i) width = std::max(width, c.str(i).size());
  return width;
}

// The file type of a column of `type` (strings: fixed-length of `width` bytes).
Hdf5Type file_type(ColumnType type, size_t width) {
  switch (type) {
    case ColumnType::kString:
      return fixed_string_type(width);
    case ColumnType::kInt:
      return Hdf5Type(H5Tcopy(H5T_STD_I64LE));
    case ColumnType::kDouble:
      break;
  }
  return Hdf5Type(H5Tcopy(H5T_IEEE_F64LE));
}

// Above this many separate ranges a process's rows are selected point by point: HDF5 1.10 merges
// each hyperslab OR'd into a selection with all before it (8,192 one-row ranges: 2.5 s per
// column), while a point list is built in linear time.
constexpr size_t kMaxHyperslabs = 64;

// A process's selection of a dataset: `ranges` (offset, rows), sorted and merged; none: nothing
// selected. `points`: every row of them, when there are more than kMaxHyperslabs ranges.
bool select_rows(hid_t space, const std::vector<std::pair<uint64_t, uint64_t>>& ranges,
                 const std::vector<hsize_t>& points) {
  if (ranges.empty()) return H5Sselect_none(space) >= 0;
  if (ranges.size() > kMaxHyperslabs)
    return H5Sselect_elements(space, H5S_SELECT_SET, points.size(), points.data()) >= 0;
  bool first = true;
  for (const auto& [offset, rows] : ranges) {
    const hsize_t start[1] = {offset};
    const hsize_t count[1] = {rows};
    if (H5Sselect_hyperslab(space, first ? H5S_SELECT_SET : H5S_SELECT_OR, start, nullptr, count,
                            nullptr) < 0)
      return false;
    first = false;
  }
  return true;
}

}  // namespace

bool Hdf5CollectiveTable::fail(Diagnostics& diag, const std::string& what) {
  return file_->fail(diag, "table " + name_ + ": " + what);
}

bool Hdf5CollectiveTable::good_everywhere(Hdf5File& file, const std::string& table,
                                          Diagnostics& diag) {
  const bool bad_here = file.failed() || !file.file_;  // already reported
  if (collective_of(file).all_max({bad_here ? 1u : 0u})[0] == 0) return true;
  if (!bad_here)
    file.fail(diag, "table " + table + ": not written: another process's part of the file failed",
              "that process's message says why");
  return false;
}

std::optional<Hdf5CollectiveTable> Hdf5CollectiveTable::create(
    Hdf5File& file, const Table& schema, const std::vector<size_t>& string_widths,
    uint64_t expected_rows, Diagnostics& diag, const Hdf5TableOptions& opt) {
  // A process whose file failed must not leave the others alone in HDF5's collective calls.
  if (!good_everywhere(file, schema.name, diag)) return std::nullopt;
  if (std::string why = check_columns(schema); !why.empty()) {
    file.fail(diag, why);
    return std::nullopt;
  }
  Hdf5CollectiveTable t(file, schema.name);
  const std::string group_path = "/" + schema.name;
  auto fail = [&](const std::string& why) { t.fail(diag, why); };
  if (!create_table_group(file.id(), schema, static_cast<int64_t>(expected_rows), t.group_, fail))
    return std::nullopt;
  size_t next_string = 0;
  for (const Column& c : schema.columns) {
    size_t width = 8;
    if (c.type == ColumnType::kString) {
      if (next_string >= string_widths.size()) {
        t.fail(diag, "no width given for string column " + c.name);
        return std::nullopt;
      }
      width = std::max<size_t>(1, string_widths[next_string++]);
    }
    Hdf5Type type = file_type(c.type, width);
    const hsize_t dims[1] = {expected_rows};
    const hsize_t maxdims[1] = {H5S_UNLIMITED};
    const hsize_t chunk[1] = {hdf5_chunk_rows(expected_rows, opt.chunk_rows, width)};
    Hdf5Space space(H5Screate_simple(1, dims, maxdims));
    Hdf5Plist dcpl(H5Pcreate(H5P_DATASET_CREATE));
    bool ok = type && space && dcpl && H5Pset_chunk(dcpl.get(), 1, chunk) >= 0 &&
              (!opt.shuffle || H5Pset_shuffle(dcpl.get()) >= 0) &&
              H5Pset_obj_track_times(dcpl.get(), 0) >= 0;
    if (ok && opt.deflate_level > 0 && H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0)
      ok = H5Pset_deflate(dcpl.get(), static_cast<unsigned>(std::min(opt.deflate_level, 9))) >= 0;
    Hdf5Dataset ds(ok ? H5Dcreate2(t.group_.get(), c.name.c_str(), type.get(), space.get(),
                                   H5P_DEFAULT, dcpl.get(), H5P_DEFAULT)
                      : H5I_INVALID_HID);
    if (!ds || !write_scalar_attribute(ds.get(), "units", c.unit)) {
      t.fail(diag, "cannot create dataset " + group_path + "/" + c.name);
      return std::nullopt;
    }
    t.datasets_.push_back(std::move(ds));
    t.types_.push_back(c.type);
    t.widths_.push_back(width);
  }
  t.extent_ = expected_rows;
  return t;
}

bool Hdf5CollectiveTable::append(const Table& local, const std::vector<Hdf5RowBlock>& blocks,
                                 Diagnostics& diag) {
  const Hdf5Collective& coll = collective_of(*file_);
  // What this process found wrong with its own rows, before any collective HDF5 call.
  std::string why;
  uint64_t block_rows = 0;
  for (const Hdf5RowBlock& b : blocks) block_rows += b.rows;
  if (local.columns.size() != types_.size()) why = "its columns differ from the table's";
  for (size_t k = 0; why.empty() && k < types_.size(); ++k) {
    const Column& c = local.columns[k];
    if (c.type != types_[k] || c.size() != local.rows())
      why = "column " + c.name + " differs from the table's";
    else if (c.type == ColumnType::kString && longest_value(c) > widths_[k])
      why = "column " + c.name + " holds a value wider than its width";
  }
  if (why.empty() && block_rows != local.rows()) why = "its blocks do not cover its rows";
  if (why.empty() && file_->failed()) why = "the file failed on this process";
  std::vector<uint64_t> mine = {why.empty() ? 0u : 1u};
  for (const Hdf5RowBlock& b : blocks) mine.insert(mine.end(), {b.key, b.rows});
  const std::vector<std::vector<uint64_t>> all = coll.all_gather(mine);
  // Every block of every process, in key order: (key, process, index in that process).
  std::vector<std::tuple<uint64_t, size_t, size_t, uint64_t>> order;
  bool any_bad = false;
  for (size_t p = 0; p < all.size(); ++p) {
    any_bad = any_bad || all[p].empty() || all[p][0] != 0;
    for (size_t i = 1; i + 1 < all[p].size(); i += 2)
      order.emplace_back(all[p][i], p, (i - 1) / 2, all[p][i + 1]);
  }
  std::sort(order.begin(), order.end());
  for (size_t i = 1; i < order.size(); ++i)
    if (std::get<0>(order[i]) == std::get<0>(order[i - 1])) {
      any_bad = true;
      if (why.empty()) why = "a block key is given twice";
    }
  if (any_bad) {
    if (why.empty()) why = "another process's rows do not fit it (see its message)";
    return fail(diag, "rows not written: " + why);
  }
  // Offsets of this process's blocks, in its order.
  std::vector<std::pair<uint64_t, uint64_t>> at(blocks.size());
  uint64_t offset = rows_;
  const auto me = static_cast<size_t>(coll.process());
  for (const auto& [key, p, index, rows] : order) {
    if (p == me) at[index] = {offset, rows};
    offset += rows;
  }
  if (offset > extent_) {
    const hsize_t dims[1] = {offset};
    for (Hdf5Dataset& ds : datasets_)
      if (H5Dset_extent(ds.get(), dims) < 0) return fail(diag, "cannot grow its datasets");
    extent_ = offset;
  }
  Hdf5Plist dxpl;
  if (coll.processes() > 1) {
    dxpl = hdf5_collective_transfer();
    if (!dxpl) return fail(diag, "cannot prepare a collective transfer");
  }
  // HDF5 fills a selection of several blocks in file order: this process's rows go out in the
  // order of their offsets (`rows_in_order`: local row numbers), whatever the blocks' order.
  std::vector<size_t> by_offset(blocks.size());
  for (size_t b = 0; b < by_offset.size(); ++b) by_offset[b] = b;
  std::stable_sort(by_offset.begin(), by_offset.end(),
                   [&](size_t a, size_t b) { return at[a].first < at[b].first; });
  std::vector<size_t> rows_in_order;
  bool permuted = false;
  for (size_t b = 0; b < by_offset.size(); ++b) permuted = permuted || by_offset[b] != b;
  if (permuted) {
    std::vector<uint64_t> first(blocks.size() + 1, 0);
    for (size_t b = 0; b < blocks.size(); ++b) first[b + 1] = first[b] + blocks[b].rows;
    for (size_t b : by_offset)
      for (uint64_t i = 0; i < blocks[b].rows; ++i) rows_in_order.push_back(first[b] + i);
  }
  auto row = [&](size_t i) { return permuted ? rows_in_order[i] : i; };
  // The file rows these go to: contiguous blocks merged into ranges.
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (size_t b : by_offset) {
    const auto [offset, count] = at[b];
    if (count == 0) continue;
    if (!ranges.empty() && ranges.back().first + ranges.back().second == offset) {
      ranges.back().second += count;
    } else {
      ranges.emplace_back(offset, count);
    }
  }
  std::vector<hsize_t> points;
  if (ranges.size() > kMaxHyperslabs)
    for (const auto& [offset, count] : ranges)
      for (uint64_t i = 0; i < count; ++i) points.push_back(offset + i);
  const hsize_t n = local.rows();
  const hsize_t mem_dims[1] = {std::max<hsize_t>(n, 1)};
  std::string strings;
  std::vector<int64_t> ints;
  std::vector<double> doubles;
  const double nothing = 0;
  for (size_t k = 0; k < datasets_.size(); ++k) {
    const Column& c = local.columns[k];
    Hdf5Space file_space(H5Dget_space(datasets_[k].get()));
    Hdf5Space mem_space(H5Screate_simple(1, mem_dims, nullptr));
    if (!file_space || !mem_space || !select_rows(file_space.get(), ranges, points) ||
        (n == 0 && H5Sselect_none(mem_space.get()) < 0))
      return fail(diag, "cannot select its rows in " + c.name);
    Hdf5Type mem_type;
    const void* data = &nothing;
    switch (c.type) {
      case ColumnType::kString:
        mem_type = fixed_string_type(widths_[k]);
        strings.assign(n * widths_[k], '\0');
        for (size_t i = 0; i < n; ++i) {
          const std::string_view v = c.str(row(i));
          strings.replace(i * widths_[k], v.size(), v);
        }
        if (n > 0) data = strings.data();
        break;
      case ColumnType::kInt:
        mem_type = Hdf5Type(H5Tcopy(H5T_NATIVE_INT64));
        if (permuted) {
          ints.resize(n);
          for (size_t i = 0; i < n; ++i) ints[i] = c.ints[row(i)];
        }
        if (n > 0) data = permuted ? ints.data() : c.ints.data();
        break;
      case ColumnType::kDouble:
        mem_type = Hdf5Type(H5Tcopy(H5T_NATIVE_DOUBLE));
        if (permuted) {
          doubles.resize(n);
          for (size_t i = 0; i < n; ++i) doubles[i] = c.doubles[row(i)];
        }
        if (n > 0) data = permuted ? doubles.data() : c.doubles.data();
        break;
    }
    if (!mem_type || H5Dwrite(datasets_[k].get(), mem_type.get(), mem_space.get(), file_space.get(),
                              dxpl ? dxpl.get() : H5P_DEFAULT, data) < 0)
      return fail(diag, "cannot write dataset /" + name_ + "/" + c.name);
  }
  rows_ = offset;
  return true;
}

bool Hdf5CollectiveTable::finish(Diagnostics& diag) {
  if (!good_everywhere(*file_, name_, diag)) return false;
  if (rows_ != extent_) {
    const hsize_t dims[1] = {rows_};
    for (Hdf5Dataset& ds : datasets_)
      if (H5Dset_extent(ds.get(), dims) < 0) return fail(diag, "cannot cut its datasets");
    extent_ = rows_;
    if (!write_scalar_attribute(group_.get(), "rows", static_cast<int64_t>(rows_)))
      return fail(diag, "cannot write its rows attribute");
  }
  datasets_.clear();
  group_ = Hdf5Group();
  return true;
}

Hdf5CollectiveWrite write_table_collective(Hdf5File& file, const Table& local,
                                           const std::vector<Hdf5RowBlock>& blocks,
                                           Diagnostics& diag, const Hdf5TableOptions& opt) {
  const Hdf5Collective& coll = collective_of(file);
  // Agreed first: each string column's longest value (max), and its bytes and the rows (sums),
  // which decide whether it would be stored as variable-length strings.
  std::vector<uint64_t> longest, sums = {local.rows()};
  for (const Column& c : local.columns) {
    if (c.type != ColumnType::kString) continue;
    longest.push_back(longest_value(c));
    uint64_t bytes = 0;
    for (size_t i = 0; i < c.size(); ++i) bytes += c.str(i).size() + 1;
    sums.push_back(bytes);
  }
  const std::vector<uint64_t> widths = coll.all_max(longest);
  std::vector<uint64_t> total(sums.size(), 0);
  for (const std::vector<uint64_t>& p : coll.all_gather(sums))
    for (size_t i = 0; i < total.size() && i < p.size(); ++i) total[i] += p[i];
  for (size_t k = 0; k < widths.size(); ++k)
    if (hdf5_variable_strings(widths[k], total[k + 1], total[0]))
      return Hdf5CollectiveWrite::kSerial;
  auto t =
      Hdf5CollectiveTable::create(file, local, {widths.begin(), widths.end()}, total[0], diag, opt);
  if (!t || !t->append(local, blocks, diag) || !t->finish(diag))
    return Hdf5CollectiveWrite::kFailed;
  return Hdf5CollectiveWrite::kWritten;
}

}  // namespace cs::io
