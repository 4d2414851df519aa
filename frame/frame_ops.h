#pragma once
// The few DataFrame operations the recipes need, with pandas' semantics: column lookup,
// concatenation aligned by column name, keys for grouping and ordering like groupby's sort.

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "frame/frame.h"

namespace cs::frame {

// The column named `name`, or nullptr.
const FrameColumn* find_column(const Frame& f, const std::string& name);
FrameColumn* find_column(Frame& f, const std::string& name);

// pd.concat(frames).reindex(columns=names): rows of every frame in order, the named columns
// (NULL where a frame lacks one).
// Each column has room for `spare_rows` more rows (for append_frames).
Frame concat_frames(const std::vector<const Frame*>& frames, const std::vector<std::string>& names,
                    size_t spare_rows = 0);
// The same, taking the frames' cells instead of copying them: each frame is freed as soon as its
// rows are in (the frames are left empty). `release` (when given) is called each time about a
// sixteenth of the rows has been moved and their frames freed: where the caller gives the freed
// memory back to the system, so the rows are resident about once, not twice.
Frame concat_frames(std::vector<Frame>&& frames, const std::vector<std::string>& names,
                    size_t spare_rows = 0, const std::function<void()>& release = nullptr);
// concat_frames({&head, &tail}, names), keeping head's columns (moved, no copy when they have
// room for tail's rows: see concat_frames' `spare_rows`).
Frame append_frames(Frame&& head, const Frame& tail, const std::vector<std::string>& names);

// The union of the frames' column names in first-seen order (pd.concat's columns).
std::vector<std::string> column_union(const std::vector<const Frame*>& frames);

// groupby's key order: NULL keys are dropped by the caller; numbers before text, numbers by
// value, text by code point. Returns <0, 0, >0.
int compare_cells(const Cell& a, const Cell& b);
// groupby(keys, sort=sort): the row indices of each group, groups sorted by their keys
// (sort=true) or in order of first appearance; rows with a NULL key are left out.
std::vector<std::vector<size_t>> group_rows(const Frame& f, const std::vector<std::string>& keys,
                                            bool sort);
// group_rows' groups in two flat arrays (no allocation per group): group g's row indices are
// rows[starts[g] .. starts[g + 1]).
struct GroupedRows {
  std::vector<size_t> rows;
  std::vector<size_t> starts;  // size() + 1 entries
  size_t size() const { return starts.empty() ? 0 : starts.size() - 1; }
  std::span<const size_t> operator[](size_t g) const {
    return {rows.data() + starts[g], starts[g + 1] - starts[g]};
  }
  // The groups in order, each as its rows: for (std::span<const size_t> g : grouped).
  struct Iterator {
    const GroupedRows* groups;
    size_t g;
    std::span<const size_t> operator*() const { return (*groups)[g]; }
    Iterator& operator++() {
      ++g;
      return *this;
    }
    bool operator!=(const Iterator& other) const { return g != other.g; }
  };
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, size()}; }
};
// group_rows() as GroupedRows: the same groups in the same order.
GroupedRows group_rows_flat(const Frame& f, const std::vector<std::string>& keys, bool sort);
// groupby(...).agg("sum") of a column (of dtype `t`, c.dtype()) over `rows`: an int for int64, else
// the Kahan-compensated float sum.
Cell group_sum(const FrameColumn& c, Dtype t, std::span<const size_t> rows);
// groupby(...).agg("first"): the first non-NULL cell (NULL when none).
Cell group_first(const FrameColumn& c, std::span<const size_t> rows);

// A cell as a hashable/comparable text key ("i:12", "r:0.5", "t:abc", "n").
std::string cell_key(const Cell& c);
// Equality and hash of cells as their cell_key()s compare, without building the keys: an
// integral float equals the int of its value, all NaNs are one key.
bool cell_key_equal(const Cell& a, const Cell& b);
size_t cell_key_hash(const Cell& c);
// cell_key_hash / cell_key_equal as function objects, for maps keyed by cells.
struct CellKeyHash {
  size_t operator()(const Cell& c) const { return cell_key_hash(c); }
};
struct CellKeyEqual {
  bool operator()(const Cell& a, const Cell& b) const { return cell_key_equal(a, b); }
};

}  // namespace cs::frame
