#pragma once
// communication_time_sum's "Total Op Info" rows kept on disk between the two walks over the ranks
// (issue 38, docs/root_memory.md "Done: the time tables' totals in sorted runs on disk"): the first
// walk adds each rank's totals; every `run_rows` rows are stably sorted by the table's keys and
// stored as one run; the second walk, once the ranks' rows are written, reads the runs back merged
// in key order. The runs hold consecutive ranks, so a merge that takes the earlier run first on
// equal keys gives the stable sort of the whole concatenation, as groupby's sorted totals are.
// Stored in chunks of a thousand rows, the merge holds one chunk per run.
//
// The cells are stored as their 16 bytes (a text cell is a pointer into the run's text pool,
// frame/text_pool.h, which is never freed): the file is read back by the process that wrote it.
// When the file cannot be written the chunks stay in memory (problem() says why): the rows read
// back are the same.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frame/frame.h"
#include "runtime/spill_file.h"

namespace cs::recipes::communication_time_sum {

class KeySortedRuns {
 public:
  // Rows of `columns` columns ordered by the cells of the columns `keys` (frame::compare_cells,
  // in turn; equal keys in the order added), sorted and stored `run_rows` rows at a time in
  // `file` (in memory when null).
  KeySortedRuns(size_t columns, std::vector<size_t> keys, size_t run_rows,
                std::shared_ptr<runtime::SpillFile> file);
  KeySortedRuns(const KeySortedRuns&) = delete;
  KeySortedRuns& operator=(const KeySortedRuns&) = delete;

  // Adds rows [from, rows.rows()) of `rows` (the columns in order).
  void add(const frame::Frame& rows, size_t from = 0);
  // Stores what add() still holds; then a Merger can read.
  void finish();
  uint64_t rows() const { return rows_; }
  size_t runs() const { return runs_.size(); }
  // Why the file failed (empty: it did not, or there is none).
  const std::string& problem() const { return problem_; }

  // The rows of every run in key order (a run's before a later run's on equal keys).
  class Merger {
   public:
    // Reads the first chunk of every run. Throws std::runtime_error when one cannot be read.
    explicit Merger(const KeySortedRuns& runs);
    ~Merger();
    // Up to `max_rows` next rows into `out` (one cell vector per column, replaced); false when
    // there are none left. Throws std::runtime_error when a chunk cannot be read.
    bool next(std::vector<std::vector<frame::Cell>>& out, size_t max_rows);

   private:
    struct Cursor;
    void load(Cursor& c);
    bool later(size_t a, size_t b) const;
    const KeySortedRuns& runs_;
    std::vector<Cursor> cursors_;
    std::vector<size_t> heap_;  // cursors with rows left, the smallest next row first
  };

 private:
  struct Chunk {
    runtime::SpillFile::Block block;  // in the file, or
    std::vector<char> bytes;          // held (no file, or it failed)
    uint32_t rows = 0;
  };
  void store_run();

  size_t columns_;
  std::vector<size_t> keys_;
  size_t run_rows_;
  std::shared_ptr<runtime::SpillFile> file_;
  std::vector<std::vector<Chunk>> runs_;
  uint64_t rows_ = 0;
  std::vector<std::vector<frame::Cell>> pending_;  // the rows added and not yet stored, by column
  std::string problem_;
};

}  // namespace cs::recipes::communication_time_sum
