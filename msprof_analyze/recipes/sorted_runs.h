#pragma once
// Rows of a table kept on disk in sorted runs, then read back merged in order (issue 38,
// docs/root_memory.md): communication_matrix_sum's final links and their totals, ordered by the
// position of each row (added already in order, in batches: a batch earlier than the last one
// starts a new run), and communication_time_sum's "Total Op Info" rows, ordered by key columns
// (added in any order: every `run_rows` rows are stably sorted and stored as one run). The merge
// takes the earlier run first on equal order, so runs of consecutive rows merge into the stable
// sort of their concatenation.
//
// A run is stored in chunks of `chunk_rows` rows, column-major, each chunk's first row kept aside:
// the merge holds one chunk per run at the most, and reads a run's next chunk only when that
// first row's turn comes. The cells are stored as their 16 bytes (a text cell is a pointer into
// the run's text pool, frame/text_pool.h, which is never freed): the file is read back by the
// process that wrote it. When the file cannot be written the chunks stay in memory (problem()
// says why): the rows read back are the same.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frame/frame.h"
#include "runtime/spill_file.h"

namespace cs::recipes {

class SortedRuns {
  struct Row;  // a row of a stored chunk (below)

 public:
  // Rows of `columns` columns ordered by a position each, added with add(rows, pos); stored
  // `chunk_rows` rows a chunk in `file` (in memory when null).
  SortedRuns(size_t columns, size_t chunk_rows, std::shared_ptr<runtime::SpillFile> file);
  // Rows of `columns` columns ordered by the cells of the columns `keys` (frame::compare_cells,
  // in turn; equal keys in the order added), added with add(rows, from): sorted and stored
  // `run_rows` rows at a time, `chunk_rows` rows a chunk in `file` (in memory when null).
  SortedRuns(size_t columns, std::vector<size_t> keys, size_t run_rows, size_t chunk_rows,
             std::shared_ptr<runtime::SpillFile> file);
  SortedRuns(const SortedRuns&) = delete;
  SortedRuns& operator=(const SortedRuns&) = delete;

  // Ordered by position: adds a batch, `rows` (the columns, in order) with each row's position,
  // `pos` (increasing); a batch starting before the last row added starts a new run. (Throws
  // std::logic_error on rows ordered by keys, as the other add() on rows ordered by position.)
  void add(const frame::Frame& rows, const std::vector<uint64_t>& pos);
  // Ordered by keys: adds rows [from, rows.rows()) of `rows` (the columns, in order).
  void add(const frame::Frame& rows, size_t from = 0);
  // Stores what add() still holds; then a Merger can read.
  void finish();
  // The rows added; the runs stored.
  uint64_t rows() const { return rows_; }
  size_t runs() const { return runs_.size(); }
  // Why the file failed (empty: it did not, or there is none).
  const std::string& problem() const { return problem_; }

  // The rows of every run in order (a run's before a later run's on equal order).
  class Merger {
   public:
    // Reads nothing yet: a run's chunk is read when its first row's turn comes.
    explicit Merger(const SortedRuns& runs);
    ~Merger();
    // Up to `max_rows` next rows into `out` (one cell vector per column, replaced); false when
    // there are none left. Throws std::runtime_error when a chunk cannot be read.
    bool next(std::vector<std::vector<frame::Cell>>& out, size_t max_rows);

   private:
    struct Cursor;
    Row head(const Cursor& c) const;
    void load(Cursor& c);
    // next() with the order `before(x, y)`: row x before row y.
    template <class Before>
    bool merge(std::vector<std::vector<frame::Cell>>& out, size_t max_rows, const Before& before);
    const SortedRuns& runs_;
    std::vector<Cursor> cursors_;
    std::vector<size_t> heap_;  // cursors with rows left, the smallest next row first
  };

 private:
  struct Chunk {
    runtime::SpillFile::Block block;  // in the file, or
    std::vector<char> bytes;          // held (no file, or it failed)
    std::vector<char> first;          // its first row, stored as a chunk of one row
    uint32_t rows = 0;
    bool in_file = false;
  };
  // Row `at` of the chunk `chunk` of `rows` rows, of run `run`.
  struct Row {
    const char* chunk;
    size_t rows;
    size_t at;
    size_t run;
  };
  // The bytes of a chunk of n rows.
  size_t chunk_bytes(size_t n) const;
  void store(size_t from, size_t to, const uint32_t* order);
  void store_pending();
  void store_run();

  size_t columns_;
  bool by_position_;
  std::vector<size_t> keys_;
  size_t run_rows_ = 0;
  size_t chunk_rows_;
  std::shared_ptr<runtime::SpillFile> file_;
  std::vector<std::vector<Chunk>> runs_;
  bool new_run_ = true;  // the next chunk starts a run
  uint64_t last_ = 0;    // by position: the position of the last row added (when rows_ > 0)
  uint64_t rows_ = 0;
  // The rows added and not yet stored: columns, then positions.
  std::vector<std::vector<frame::Cell>> pending_;
  std::vector<uint64_t> pending_pos_;
  size_t pending_rows_ = 0;
  std::string problem_;
};

}  // namespace cs::recipes
