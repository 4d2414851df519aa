#include "frame/frame_ops.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>

#include "frame/pandas_math.h"
#include "io/py_format.h"

namespace cs::frame {

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

Frame concat_frames(const std::vector<const Frame*>& frames, const std::vector<std::string>& names,
                    size_t spare_rows) {
  Frame out;
  size_t total = 0;
  for (const Frame* f : frames) total += f->rows();
  for (const auto& n : names) out.add(n).cells.reserve(total + spare_rows);
  for (const Frame* f : frames) {
    const size_t rows = f->rows();
    for (size_t k = 0; k < names.size(); ++k) {
      const FrameColumn* src = find_column(*f, names[k]);
      auto& dst = out.columns[k];
      if (src && src->force_object) dst.force_object = true;
      if (src)
        dst.cells.insert(dst.cells.end(), src->cells.begin(), src->cells.begin() + rows);
      else
        dst.cells.resize(dst.cells.size() + rows);
    }
  }
  return out;
}

Frame concat_frames(std::vector<Frame>&& frames, const std::vector<std::string>& names,
                    size_t spare_rows, const std::function<void()>& release) {
  Frame out;
  size_t total = 0;
  for (const Frame& f : frames) total += f.rows();
  for (const auto& n : names) out.add(n).cells.reserve(total + spare_rows);
  const size_t step = total / 16 + 1;
  size_t moved = 0, next_release = step;
  for (Frame& f : frames) {
    const size_t rows = f.rows();
    moved += rows;
    for (size_t k = 0; k < names.size(); ++k) {
      FrameColumn* src = find_column(f, names[k]);
      auto& dst = out.columns[k];
      if (src && src->force_object) dst.force_object = true;
      if (src)
        dst.cells.insert(dst.cells.end(), std::make_move_iterator(src->cells.begin()),
                         std::make_move_iterator(src->cells.begin() + rows));
      else
        dst.cells.resize(dst.cells.size() + rows);
    }
    f = Frame{};
    if (release && moved >= next_release) {
      release();
      next_release = moved + step;
    }
  }
  return out;
}

Frame append_frames(Frame&& head, const Frame& tail, const std::vector<std::string>& names) {
  Frame out;
  const size_t head_rows = head.rows(), tail_rows = tail.rows();
  for (const auto& n : names) {
    FrameColumn& dst = out.add(n);
    if (FrameColumn* src = find_column(head, n)) {
      dst.cells = std::move(src->cells);
      dst.cells.resize(head_rows);
      dst.force_object = src->force_object;
    } else {
      dst.cells.assign(head_rows, Cell::null());
    }
    if (const FrameColumn* src = find_column(tail, n)) {
      dst.force_object = dst.force_object || src->force_object;
      dst.cells.insert(dst.cells.end(), src->cells.begin(), src->cells.begin() + tail_rows);
    } else {
      dst.cells.resize(head_rows + tail_rows);
    }
  }
  head = Frame{};
  return out;
}

int compare_cells(const Cell& a, const Cell& b) {
  const bool an = a.is_number(), bn = b.is_number();
  if (an && bn) {
    if (a.kind == Cell::Kind::kInt && b.kind == Cell::Kind::kInt)
      return a.i() < b.i() ? -1 : (a.i() > b.i() ? 1 : 0);
    const double x = a.num(), y = b.num();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (an != bn) return an ? -1 : 1;
  if (a.kind == Cell::Kind::kText && b.kind == Cell::Kind::kText) {
    const int c = a.str().compare(b.str());
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  return static_cast<int>(a.kind) - static_cast<int>(b.kind);
}

namespace {

// An integral float within int64's range: its key is that of the int (cell_key). The range is
// checked first: converting NaN or a number beyond int64 is undefined.
bool int_like(double d, int64_t& v) {
  if (!(d > -9.2e18 && d < 9.2e18)) return false;
  v = static_cast<int64_t>(d);
  return d == static_cast<double>(v);
}

}  // namespace

std::string cell_key(const Cell& c) {
  switch (c.kind) {
    case Cell::Kind::kNull:
      return "n";
    case Cell::Kind::kInt:
      return "i:" + std::to_string(c.i());
    case Cell::Kind::kReal: {
      // Equal numbers are one key whatever their storage (pandas compares values).
      int64_t v = 0;
      if (int_like(c.num(), v)) return "i:" + std::to_string(v);
      return "r:" + io::py_repr(c.num());
    }
    case Cell::Kind::kText:
      return "t:" + c.str();
  }
  return "n";
}

bool cell_key_equal(const Cell& a, const Cell& b) {
  const bool an = a.is_number(), bn = b.is_number();
  if (an && bn) {
    int64_t x = 0, y = 0;
    const bool xi = a.kind == Cell::Kind::kInt ? (x = a.i(), true) : int_like(a.num(), x);
    const bool yi = b.kind == Cell::Kind::kInt ? (y = b.i(), true) : int_like(b.num(), y);
    if (xi || yi) return xi && yi && x == y;
    return a.num() == b.num() || (std::isnan(a.num()) && std::isnan(b.num()));
  }
  if (a.kind != b.kind) return false;
  return a.kind != Cell::Kind::kText || a.text_ptr() == b.text_ptr();  // interned texts
}

size_t cell_key_hash(const Cell& c) {
  switch (c.kind) {
    case Cell::Kind::kNull:
      return 0x9e3779b97f4a7c15ull;
    case Cell::Kind::kInt:
      return std::hash<int64_t>{}(c.i());
    case Cell::Kind::kReal: {
      int64_t v = 0;
      if (int_like(c.num(), v)) return std::hash<int64_t>{}(v);
      if (std::isnan(c.num())) return 0x7ff8dead;
      return std::hash<double>{}(c.num());
    }
    case Cell::Kind::kText:
      return std::hash<const void*>{}(c.text_ptr()) ^ 0x51ed270b;  // interned: one per text
  }
  return 0;
}

namespace {

// splitmix64's finalizer: spreads a combined key hash over the low bits the table uses.
uint64_t mix(uint64_t h) {
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

}  // namespace

GroupedRows group_rows_flat(const Frame& f, const std::vector<std::string>& keys, bool sort) {
  std::vector<const FrameColumn*> cols;
  for (const auto& k : keys) cols.push_back(find_column(f, k));
  GroupedRows groups;
  // A missing key column is all NULL: every row is left out.
  if (std::find(cols.begin(), cols.end(), nullptr) != cols.end()) return groups;
  const size_t n = f.rows();
  constexpr uint32_t kNone = UINT32_MAX;
  // Each row's group (kNone for a NULL key), groups numbered in order of first appearance; an
  // open-addressing table of group numbers, probed by the key hash, compared by the key cells.
  std::vector<uint32_t> row_group(n, kNone);
  std::vector<size_t> first_row, sizes;
  std::vector<uint64_t> group_hash;
  size_t mask = 63;
  std::vector<uint32_t> slots(mask + 1, kNone);
  auto place = [&](uint32_t g) {
    size_t pos = group_hash[g] & mask;
    while (slots[pos] != kNone) pos = (pos + 1) & mask;
    slots[pos] = g;
  };
  for (size_t r = 0; r < n; ++r) {
    uint64_t h = 0;
    bool null_key = false;
    for (const FrameColumn* c : cols) {
      const Cell& x = c->cells[r];
      null_key |= x.is_null();
      h = h * 0x100000001b3ull ^ cell_key_hash(x);
    }
    if (null_key) continue;
    h = mix(h);
    size_t pos = h & mask;
    uint32_t g = kNone;
    for (;; pos = (pos + 1) & mask) {
      const uint32_t s = slots[pos];
      if (s == kNone) break;
      if (group_hash[s] != h) continue;
      bool same = true;
      for (const FrameColumn* c : cols)
        if (!cell_key_equal(c->cells[first_row[s]], c->cells[r])) {
          same = false;
          break;
        }
      if (same) {
        g = s;
        break;
      }
    }
    if (g == kNone) {
      g = static_cast<uint32_t>(first_row.size());
      first_row.push_back(r);
      sizes.push_back(0);
      group_hash.push_back(h);
      slots[pos] = g;
      if (first_row.size() * 2 > mask + 1) {  // keep the table at most half full
        mask = mask * 2 + 1;
        slots.assign(mask + 1, kNone);
        for (uint32_t k = 0; k < first_row.size(); ++k) place(k);
      }
    }
    row_group[r] = g;
    ++sizes[g];
  }
  // The groups in their output order (first appearance, or sorted by their keys), then each
  // group's rows in row order placed by a counting pass.
  std::vector<uint32_t> order(first_row.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  if (sort)
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      for (const FrameColumn* c : cols) {
        const int x = compare_cells(c->cells[first_row[a]], c->cells[first_row[b]]);
        if (x != 0) return x < 0;
      }
      return false;
    });
  std::vector<size_t> next(order.size());  // the next free place of each group's rows
  groups.starts.resize(order.size() + 1);
  size_t at = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    groups.starts[k] = at;
    next[order[k]] = at;
    at += sizes[order[k]];
  }
  groups.starts[order.size()] = at;
  groups.rows.resize(at);
  for (size_t r = 0; r < n; ++r)
    if (row_group[r] != kNone) groups.rows[next[row_group[r]]++] = r;
  return groups;
}

std::vector<std::vector<size_t>> group_rows(const Frame& f, const std::vector<std::string>& keys,
                                            bool sort) {
  const GroupedRows flat = group_rows_flat(f, keys, sort);
  std::vector<std::vector<size_t>> groups(flat.size());
  for (size_t g = 0; g < groups.size(); ++g) groups[g].assign(flat[g].begin(), flat[g].end());
  return groups;
}

Cell group_sum(const FrameColumn& c, Dtype t, std::span<const size_t> rows) {
  if (t == Dtype::kInt64) {
    int64_t s = 0;
    for (size_t r : rows) s += c.cells[r].i();
    return Cell::integer(s);
  }
  thread_local std::vector<double> v;  // reused: one group after the other
  v.clear();
  for (size_t r : rows)
    if (c.cells[r].is_number()) v.push_back(c.cells[r].num());
  return Cell::real(kahan_sum(v));
}

Cell group_first(const FrameColumn& c, std::span<const size_t> rows) {
  for (size_t r : rows)
    if (!c.cells[r].is_null()) return c.cells[r];
  return Cell::null();
}

}  // namespace cs::frame
