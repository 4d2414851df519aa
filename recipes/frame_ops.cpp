#include "recipes/frame_ops.h"

#include <algorithm>
#include <cstring>

#include "io/py_format.h"
#include "recipes/pandas_math.h"

#include <map>
#include <unordered_map>

namespace cs::recipes {

const FrameColumn* find_column(const Frame& f, const std::string& name) {
  for (const auto& c : f.columns)
    if (c.name == name) return &c;
  return nullptr;
}

FrameColumn* find_column(Frame& f, const std::string& name) {
  for (auto& c : f.columns)
    if (c.name == name) return &c;
  return nullptr;
}

std::vector<std::string> column_union(const std::vector<const Frame*>& frames) {
  std::vector<std::string> names;
  for (const Frame* f : frames)
    for (const auto& c : f->columns)
      if (std::find(names.begin(), names.end(), c.name) == names.end()) names.push_back(c.name);
  return names;
}

Frame concat_frames(const std::vector<const Frame*>& frames,
                    const std::vector<std::string>& names) {
  Frame out;
  for (const auto& n : names) out.add(n);
  for (const Frame* f : frames) {
    const size_t rows = f->rows();
    for (size_t k = 0; k < names.size(); ++k) {
      const FrameColumn* src = find_column(*f, names[k]);
      auto& dst = out.columns[k];
      if (src && src->force_object) dst.force_object = true;
      for (size_t r = 0; r < rows; ++r) dst.cells.push_back(src ? src->cells[r] : Cell::null());
    }
  }
  return out;
}

int compare_cells(const Cell& a, const Cell& b) {
  const bool an = a.is_number(), bn = b.is_number();
  if (an && bn) {
    if (a.kind == Cell::Kind::kInt && b.kind == Cell::Kind::kInt)
      return a.i < b.i ? -1 : (a.i > b.i ? 1 : 0);
    const double x = a.num(), y = b.num();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (an != bn) return an ? -1 : 1;
  if (a.kind == Cell::Kind::kText && b.kind == Cell::Kind::kText) {
    const int c = a.s.compare(b.s);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  return static_cast<int>(a.kind) - static_cast<int>(b.kind);
}

std::string cell_key(const Cell& c) {
  switch (c.kind) {
    case Cell::Kind::kNull:
      return "n";
    case Cell::Kind::kInt:
      return "i:" + std::to_string(c.i);
    case Cell::Kind::kReal: {
      // Equal numbers are one key whatever their storage (pandas compares values).
      if (c.d == static_cast<double>(static_cast<int64_t>(c.d)) && c.d > -9.2e18 && c.d < 9.2e18)
        return "i:" + std::to_string(static_cast<int64_t>(c.d));
      return "r:" + io::py_repr(c.d);
    }
    case Cell::Kind::kText:
      return "t:" + c.s;
  }
  return "n";
}

std::vector<std::vector<size_t>> group_rows(const Frame& f, const std::vector<std::string>& keys,
                                            bool sort) {
  std::vector<const FrameColumn*> cols;
  for (const auto& k : keys) cols.push_back(find_column(f, k));
  std::unordered_map<std::string, size_t> index;
  std::vector<std::vector<size_t>> groups;
  std::vector<size_t> first_row;
  const size_t n = f.rows();
  for (size_t r = 0; r < n; ++r) {
    std::string key;
    bool null_key = false;
    for (const FrameColumn* c : cols) {
      const Cell& cell = c ? c->cells[r] : Cell{};
      if (cell.is_null()) null_key = true;
      key += cell_key(cell);
      key += '\x1f';
    }
    if (null_key) continue;
    auto [it, fresh] = index.emplace(std::move(key), groups.size());
    if (fresh) {
      groups.emplace_back();
      first_row.push_back(r);
    }
    groups[it->second].push_back(r);
  }
  if (!sort) return groups;
  std::vector<size_t> order(groups.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    for (const FrameColumn* c : cols) {
      const int x = compare_cells(c->cells[first_row[a]], c->cells[first_row[b]]);
      if (x != 0) return x < 0;
    }
    return false;
  });
  std::vector<std::vector<size_t>> sorted;
  sorted.reserve(groups.size());
  for (size_t i : order) sorted.push_back(std::move(groups[i]));
  return sorted;
}

Cell group_sum(const FrameColumn& c, Dtype t, const std::vector<size_t>& rows) {
  if (t == Dtype::kInt64) {
    int64_t s = 0;
    for (size_t r : rows) s += c.cells[r].i;
    return Cell::integer(s);
  }
  std::vector<double> v;
  v.reserve(rows.size());
  for (size_t r : rows)
    if (c.cells[r].is_number()) v.push_back(c.cells[r].num());
  return Cell::real(kahan_sum(v));
}

Cell group_first(const FrameColumn& c, const std::vector<size_t>& rows) {
  for (size_t r : rows)
    if (!c.cells[r].is_null()) return c.cells[r];
  return Cell::null();
}

}  // namespace cs::recipes
